// Decode-time processing of an incoming object, as the real server's codec and
// strategy do it before anything is stored: identity checks (apiVersion, kind,
// name, namespace), unknown-field handling per fieldValidation, type errors,
// Secret stringData, metav1.Time precision and defaulting.
import YAML from "yaml";
import { applyDefaults, pruneUnknown } from "./custom-resources";
import { defaultBuiltin, emptyShape } from "./defaults";
import { builtinKindSupport } from "./kinds";
import { badRequest, invalid, StatusError } from "./errors";
import { clone, isObj, nowRfc3339, type Obj } from "./json";
import { apiVersionOf, type ResourceType } from "./registry";
import { decodeTypeError, pruneUnknownTyped } from "./schema";
import { md, type WriteOptions } from "./write-options";

const TIME_KEYS = new Set(["creationTimestamp", "deletionTimestamp", "lastTransitionTime", "lastUpdateTime", "lastProbeTime", "lastHeartbeatTime", "lastScheduleTime", "lastSuccessfulTime", "startedAt", "finishedAt", "startTime", "completionTime"]);
const FREE_MAPS = new Set(["data", "binaryData", "stringData", "labels", "annotations", "selector", "matchLabels", "nodeSelector"]);

/** metav1.Time fields round-trip through Go at second precision. */
function secondPrecision(v: unknown): unknown {
  if (typeof v !== "string" || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/.test(v)) return v;
  const t = Date.parse(v);
  return Number.isNaN(t) ? v : nowRfc3339(new Date(Math.floor(t / 1000) * 1000));
}

function normaliseTimes(v: unknown, typed: boolean): void {
  if (Array.isArray(v)) {
    for (const x of v) normaliseTimes(x, typed);
    return;
  }
  if (!isObj(v)) return;
  for (const [k, x] of Object.entries(v)) {
    if (FREE_MAPS.has(k)) continue;
    if (k === "managedFields" && Array.isArray(x)) {
      for (const e of x) if (isObj(e)) e.time = secondPrecision(e.time);
      continue;
    }
    if (typed && TIME_KEYS.has(k)) v[k] = secondPrecision(x);
    else if (typed || k === "metadata") normaliseTimes(x, typed || k === "metadata");
  }
}

export class StrictDecodingError extends StatusError {
  constructor(
    readonly detail: string,
    base: StatusError,
  ) {
    super(base.code, base.reason, base.message, base.details);
  }
}

export function decode(rt: ResourceType, body: unknown, namespace: string | undefined, urlName: string | undefined, o: WriteOptions, verb: "create" | "update"): Obj {
  if (!isObj(body)) throw badRequest(`Object 'Kind' is missing in '${JSON.stringify(body)}'`);
  const obj = clone(body);
  const av = apiVersionOf(rt);
  if (obj.apiVersion !== undefined && obj.apiVersion !== av) {
    throw badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${av})`);
  }
  if (obj.kind !== undefined && obj.kind !== rt.kind) {
    throw badRequest(`${String(obj.kind)} in version "${rt.version}" cannot be handled as a ${rt.kind}: no kind "${String(obj.kind)}" is registered for version "${av}" in scheme "pkg/runtime/scheme.go:100"`);
  }
  obj.apiVersion = av;
  obj.kind = rt.kind;
  normaliseTimes(obj, rt.builtin);
  const m = md(obj);
  if (rt.namespaced) {
    if (m.namespace !== undefined && m.namespace !== "" && m.namespace !== namespace) {
      throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
    }
    m.namespace = namespace;
  } else {
    delete m.namespace;
  }
  if (urlName !== undefined && m.name !== undefined && m.name !== urlName) {
    throw badRequest(`the name of the object (${String(m.name)}) does not match the name on the URL (${urlName})`);
  }
  if (urlName !== undefined && m.name === undefined) m.name = urlName;
  const unknown: string[] = [];
  if (rt.builtin) pruneUnknownTyped(obj, rt.schema, "", unknown);
  else pruneUnknown(obj, rt.openAPISchema, "", unknown, true);
  if (unknown.length > 0) {
      if (o.fieldValidation === "Strict") {
        const detail = `strict decoding error: ${unknown.map((u) => `unknown field ${JSON.stringify(u)}`).join(", ")}`;
        throw new StrictDecodingError(detail, badRequest(`${rt.kind} in version "${rt.version}" cannot be handled as a ${rt.kind}: ${detail}`));
      }
      if (o.fieldValidation === "Warn") for (const u of unknown) o.warnings.push(`unknown field ${JSON.stringify(u)}`);
  }
  if (rt.builtin) {
    const typeErr = decodeTypeError(obj, rt.schema);
    if (typeErr) throw new StrictDecodingError(typeErr, badRequest(`${rt.kind} in version "${rt.version}" cannot be handled as a ${rt.kind}: ${typeErr}`));
    if (rt.kind === "Secret") decodeSecret(obj);
    defaultBuiltin(rt.kind, obj);
    builtinKindSupport(rt.kind)?.defaults?.(obj);
    if (verb === "create") builtinKindSupport(rt.kind)?.decodeForCreate?.(obj);
  } else {
    applyDefaults(obj, rt.openAPISchema);
    dropCRMetaNulls(obj);
  }
  return obj;
}

function dropCRMetaNulls(obj: Obj): void {
  const m = md(obj);
  for (const k of Object.keys(m)) if (m[k] === null) delete m[k];
}

export function decodeSecret(obj: Obj): void {
  const data: Obj = isObj(obj.data) ? { ...obj.data } : {};
  for (const [k, v] of Object.entries(data)) {
    if (v === null) {
      data[k] = "";
      continue;
    }
    if (typeof v !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(v) || v.length % 4 === 1) {
      throw badRequest(`Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte ${typeof v === "string" ? Math.max(0, v.search(/[^A-Za-z0-9+/=]/)) : 0}`);
    }
  }
  if (isObj(obj.stringData)) {
    for (const [k, v] of Object.entries(obj.stringData)) data[k] = Buffer.from(String(v ?? ""), "utf8").toString("base64");
  }
  delete obj.stringData;
  if (Object.keys(data).length > 0) obj.data = data;
  else delete obj.data;
}

export function emptyTyped(rt: ResourceType, namespace: string | undefined, name: string): Obj {
  const o: Obj = rt.builtin ? (builtinKindSupport(rt.kind)?.emptyShape?.() ?? emptyShape(rt.kind)) : {};
  o.apiVersion = apiVersionOf(rt);
  o.kind = rt.kind;
  const m = md(o);
  m.name = name;
  if (rt.namespaced && namespace) m.namespace = namespace;
  return o;
}

export function decodePatched(rt: ResourceType, patched: Obj, namespace: string | undefined, name: string, o: WriteOptions): Obj {
  try {
    return decode(rt, patched, namespace, name, o, "update");
  } catch (e) {
    // The patch handler reports strict decoding failures as a 422 on the field "patch".
    if (e instanceof StrictDecodingError) throw invalid("", "", "", [{ type: "Invalid", field: "patch", value: JSON.stringify(patched), detail: e.detail }]);
    throw e;
  }
}

export function parseApplyBody(body: string): Obj {
  let doc: unknown;
  try {
    doc = YAML.parse(body, { intAsBigInt: false });
  } catch (e) {
    throw badRequest(`error decoding YAML: ${(e as Error).message}`);
  }
  if (!isObj(doc)) throw badRequest(`Object 'Kind' is missing in '${body.slice(0, 200)}'`);
  return doc;
}
