// batch/v1 Job and CronJob: SetDefaults_Job/CronJob, the Job create strategy's
// generated selector, validation of schedules and restart policies, and their
// kubectl get columns.
import { closed, LABEL_SELECTOR, OBJECT_META, POD_TEMPLATE_SPEC, topLevel } from "../builtin-schemas";
import { defaultPodTemplate, setIfAbsent } from "../defaults";
import type { FieldError } from "../errors";
import { asNum, asObj, asStr, child, deepEqual, getIn, type Obj } from "../json";
import { ATOMIC_LIST, BOOL, I32, I64, OPEN, STR, struct } from "../schema";
import { ageCol, col, humanDuration, nameCol, type Column } from "../table-columns";
import type { KindSupport } from "./index";
import { formatLabelSelector } from "./policy";
import { containerCols, validateSelector, validateTemplate, zeroTemplateMeta } from "./workloads";

const JOB_SPEC = closed("v1.JobSpec", {
  parallelism: I32,
  completions: I32,
  activeDeadlineSeconds: I64,
  podFailurePolicy: OPEN,
  successPolicy: OPEN,
  backoffLimit: I32,
  backoffLimitPerIndex: I32,
  maxFailedIndexes: I32,
  selector: LABEL_SELECTOR,
  manualSelector: BOOL,
  template: POD_TEMPLATE_SPEC,
  ttlSecondsAfterFinished: I32,
  completionMode: STR,
  suspend: BOOL,
  podReplacementPolicy: STR,
  managedBy: STR,
});
const JOB = topLevel("v1.Job", { spec: JOB_SPEC, status: struct({ conditions: ATOMIC_LIST }) });
const CRON_JOB = topLevel("v1.CronJob", {
  spec: closed("v1.CronJobSpec", {
    schedule: STR,
    timeZone: STR,
    startingDeadlineSeconds: I64,
    concurrencyPolicy: STR,
    suspend: BOOL,
    jobTemplate: closed("v1.JobTemplateSpec", { metadata: OBJECT_META, spec: JOB_SPEC }),
    successfulJobsHistoryLimit: I32,
    failedJobsHistoryLimit: I32,
  }),
  status: struct({ active: ATOMIC_LIST }),
});


// ---- Job, CronJob

const JOB_LABELS = (uid: string, name: string): Obj => ({
  "batch.kubernetes.io/controller-uid": uid,
  "batch.kubernetes.io/job-name": name,
  "controller-uid": uid,
  "job-name": name,
});

function defaultJob(obj: Obj): void {
  const spec = child(obj, "spec");
  if (spec.completions == null && spec.parallelism == null) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  setIfAbsent(spec, "parallelism", 1);
  if (spec.backoffLimit == null) spec.backoffLimit = spec.backoffLimitPerIndex != null ? 2147483647 : 6;
  setIfAbsent(spec, "completionMode", "NonIndexed");
  setIfAbsent(spec, "suspend", false);
  setIfAbsent(spec, "podReplacementPolicy", spec.podFailurePolicy != null ? "Failed" : "TerminatingOrFailed");
  const tpl = child(spec, "template");
  defaultPodTemplate(tpl);
  // Job labels default to the template's when the Job has none.
  const md = child(obj, "metadata");
  const tplLabels = asObj(asObj(tpl.metadata)?.labels);
  if (tplLabels && Object.keys(asObj(md.labels) ?? {}).length === 0) md.labels = { ...tplLabels };
}

/** jobStrategy.PrepareForCreate: a selector generated from the uid unless manualSelector. */
function prepareJob(obj: Obj, uid: string): void {
  const spec = child(obj, "spec");
  if (spec.manualSelector === true) return;
  const name = asStr(getIn(obj, ["metadata", "name"])) ?? "";
  const tmd = child(child(spec, "template"), "metadata");
  tmd.labels = { ...(asObj(tmd.labels) ?? {}), ...JOB_LABELS(uid, name) };
  spec.selector = { matchLabels: { "batch.kubernetes.io/controller-uid": uid } };
  const md = child(obj, "metadata");
  if (Object.keys(asObj(md.labels) ?? {}).length === 0) md.labels = { ...(tmd.labels as Obj) };
}

function jobStatusText(o: Obj): string {
  const conds = getIn(o, ["status", "conditions"]);
  const has = (t: string) => (Array.isArray(conds) ? conds : []).some((c) => asObj(c)?.type === t && asObj(c)?.status === "True");
  if (has("Complete")) return "Complete";
  if (has("Failed")) return "Failed";
  if (getIn(o, ["metadata", "deletionTimestamp"])) return "Terminating";
  if (has("Suspended")) return "Suspended";
  if (has("FailureTarget")) return "FailureTarget";
  if (has("SuccessCriteriaMet")) return "SuccessCriteriaMet";
  return "Running";
}

const jobColumns = (): Column[] => [
  nameCol,
  col("Status", "string", "Status of the job.", jobStatusText),
  col("Completions", "string", "The desired number of successfully finished pods the job should be run with.", (o) => {
    const completions = asNum(getIn(o, ["spec", "completions"]));
    const succeeded = asNum(getIn(o, ["status", "succeeded"])) ?? 0;
    return completions !== undefined ? `${succeeded}/${completions}` : `${succeeded}/1 of ${asNum(getIn(o, ["spec", "parallelism"])) ?? 1}`;
  }),
  col("Duration", "string", "Time required to complete the job.", (o, now) => {
    const start = asStr(getIn(o, ["status", "startTime"]));
    if (!start) return "";
    const end = asStr(getIn(o, ["status", "completionTime"]));
    return humanDuration((end ? Date.parse(end) : now) - Date.parse(start));
  }),
  ageCol,
  ...containerCols(),
  col("Selector", "string", "A label query over pods that should match the pod count.", (o) => formatLabelSelector(getIn(o, ["spec", "selector"])), 1),
];

const CRON_FIELD = /^(\*|\?|[0-9A-Za-z]+(-[0-9A-Za-z]+)?)(\/\d+)?(,(\*|[0-9A-Za-z]+(-[0-9A-Za-z]+)?)(\/\d+)?)*$/;

function validateSchedule(schedule: string, errs: FieldError[]): void {
  const s = schedule.trim().replace(/^(CRON_)?TZ=\S+\s+/, "");
  if (s.startsWith("@")) {
    if (!["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"].includes(s) && !s.startsWith("@every ")) {
      errs.push({ type: "Invalid", field: "spec.schedule", value: schedule, detail: `unrecognized descriptor: ${s}` });
    }
    return;
  }
  const fields = s.split(/\s+/);
  if (fields.length !== 5) {
    errs.push({ type: "Invalid", field: "spec.schedule", value: schedule, detail: `expected exactly 5 fields, found ${fields.length}: ${s}` });
    return;
  }
  for (const f of fields) if (!CRON_FIELD.test(f)) errs.push({ type: "Invalid", field: "spec.schedule", value: schedule, detail: `failed to parse: ${f}` });
}

const cronJobColumns = (): Column[] => [
  nameCol,
  col("Schedule", "string", "The schedule in Cron format.", (o) => asStr(getIn(o, ["spec", "schedule"])) ?? ""),
  col("Timezone", "string", "The time zone name for the given schedule.", (o) => asStr(getIn(o, ["spec", "timeZone"])) ?? "<none>"),
  col("Suspend", "boolean", "Whether the cron job is suspended.", (o) => {
    const v = getIn(o, ["spec", "suspend"]);
    return typeof v === "boolean" ? (v ? "True" : "False") : "<unset>";
  }),
  col("Active", "integer", "A list of pointers to currently running jobs.", (o) => (Array.isArray(getIn(o, ["status", "active"])) ? (getIn(o, ["status", "active"]) as unknown[]).length : 0)),
  col("Last Schedule", "string", "Information when was the last time the job was successfully scheduled.", (o, now) => {
    const t = asStr(getIn(o, ["status", "lastScheduleTime"]));
    return t ? humanDuration(now - Date.parse(t)) : "<none>";
  }),
  ageCol,
  ...containerCols(["spec", "jobTemplate", "spec", "template"]),
  col("Selector", "string", "A label query over pods that should match the pod count.", (o) => formatLabelSelector(getIn(o, ["spec", "jobTemplate", "spec", "selector"])), 1),
];

export const BATCH_KINDS: KindSupport[] = [
  {
    type: { group: "batch", version: "v1", resource: "jobs", kind: "Job", namespaced: true, schema: JOB, categories: ["all"], status: true, generation: "spec" },
    defaults: defaultJob,
    emptyShape: () => ({ metadata: { creationTimestamp: null }, spec: { template: { metadata: { creationTimestamp: null }, spec: { containers: null } } }, status: {} }),
    decodeForCreate: (obj) => {
      const spec = child(obj, "spec");
      if (spec.manualSelector !== true) spec.manualSelector = false;
    },
    prepareForCreate: prepareJob,
    statusOnCreate: () => ({}),
    validate: (obj, old, errs) => {
      const spec = asObj(obj.spec) ?? {};
      if (spec.manualSelector === true || old) validateSelector(obj, old, errs, "job");
      for (const k of ["parallelism", "completions", "backoffLimit"]) {
        const v = spec[k];
        if (typeof v === "number" && v < 0) errs.push({ type: "Invalid", field: `spec.${k}`, value: v, detail: "must be greater than or equal to 0" });
      }
      validateTemplate(spec.template, "spec.template", errs, ["OnFailure", "Never"]);
      if (old && !deepEqual(getIn(old, ["spec", "template"]), spec.template) && getIn(old, ["spec", "suspend"]) !== true) {
        errs.push({ type: "Invalid", field: "spec.template", value: spec.template, detail: "field is immutable" });
      }
    },
    columns: jobColumns,
  },
  {
    type: { group: "batch", version: "v1", resource: "cronjobs", kind: "CronJob", namespaced: true, schema: CRON_JOB, shortNames: ["cj"], categories: ["all"], status: true, generation: "spec" },
    defaults: (obj) => {
      const spec = child(obj, "spec");
      setIfAbsent(spec, "concurrencyPolicy", "Allow");
      setIfAbsent(spec, "suspend", false);
      setIfAbsent(spec, "successfulJobsHistoryLimit", 3);
      setIfAbsent(spec, "failedJobsHistoryLimit", 1);
      const jt = child(spec, "jobTemplate");
      zeroTemplateMeta(child(jt, "metadata"));
      defaultPodTemplate(child(child(jt, "spec"), "template"));
    },
    emptyShape: () => ({
      metadata: { creationTimestamp: null },
      spec: { schedule: "", jobTemplate: { metadata: { creationTimestamp: null }, spec: { template: { metadata: { creationTimestamp: null }, spec: { containers: null } } } } },
      status: {},
    }),
    statusOnCreate: () => ({}),
    validate: (obj, _old, errs) => {
      const spec = asObj(obj.spec) ?? {};
      const schedule = asStr(spec.schedule) ?? "";
      if (!schedule) errs.push({ type: "Required", field: "spec.schedule" });
      else validateSchedule(schedule, errs);
      const cp = asStr(spec.concurrencyPolicy) ?? "";
      if (!["Allow", "Forbid", "Replace"].includes(cp)) errs.push({ type: "NotSupported", field: "spec.concurrencyPolicy", value: cp, detail: 'supported values: "Allow", "Forbid", "Replace"' });
      validateTemplate(getIn(spec, ["jobTemplate", "spec", "template"]), "spec.jobTemplate.spec.template", errs, ["OnFailure", "Never"]);
    },
    columns: cronJobColumns,
  },
];
