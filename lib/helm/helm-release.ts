// A Flux HelmRelease the way helm-controller (v1.6) reads it: which Helm
// release it stands for and where that release's storage lives, the values it
// composes from valuesFrom and values, and whether what Git declares has been
// released yet (status.history[0] against the chart version and the config
// digest helm-controller would compute). Pure, apart from the getter that
// reads valuesFrom's ConfigMaps and Secrets.
//
// Values from Secrets (and any values: they may hold passwords) exist only in
// memory here: what leaves is a verdict, chart names and versions, and keyed digests.
import { createHash } from "node:crypto";
import { hashBytes } from "@/lib/drift/secrets";
import { parseKubernetesYaml } from "@/lib/git/k8s-yaml";
import { helmConfigDigest } from "./config-digest";
import { canonicalJson } from "./release-storage";

type Obj = Record<string, unknown>;

export const HELM_RELEASE_API_VERSION = "helm.toolkit.fluxcd.io/v2";

const rec = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

export interface HelmReleaseRef {
  /** The Helm release's name (helm-controller's GetReleaseName, shortened to Helm's 53 characters as it does). */
  releaseName: string;
  /** Where the release's objects go by default (spec.targetNamespace, else the HelmRelease's namespace). */
  releaseNamespace: string;
  /** Where Helm keeps the release's Secrets (spec.storageNamespace, else the HelmRelease's namespace). */
  storageNamespace: string;
}

/** helm-controller's internal/release.ShortenName: over 53 characters, a prefix and 12 hex digits of its SHA-256. */
export function shortenReleaseName(name: string): string {
  if (name.length <= 53) return name;
  return `${name.slice(0, 53 - 13)}-${createHash("sha256").update(name).digest("hex").slice(0, 12)}`;
}

export function helmReleaseRefOf(helmRelease: Obj): HelmReleaseRef {
  const metadata = rec(helmRelease.metadata);
  const spec = rec(helmRelease.spec);
  const namespace = str(metadata.namespace) ?? "default";
  const name = str(metadata.name) ?? "";
  const targetNamespace = str(spec.targetNamespace);
  const releaseName = str(spec.releaseName) ?? (targetNamespace ? `${targetNamespace}-${name}` : name);
  return {
    releaseName: shortenReleaseName(releaseName),
    releaseNamespace: targetNamespace ?? namespace,
    storageNamespace: str(spec.storageNamespace) ?? namespace,
  };
}

/** Reads one ConfigMap or Secret in the HelmRelease's namespace (null when it does not exist). */
export type ReadValuesSource = (kind: "ConfigMap" | "Secret", namespace: string, name: string) => Promise<Obj | null>;

export type ComposedValues =
  /** `secretStrings`: the string values that came from Secrets; wherever the chart puts them outside a Secret, they are masked. */
  | { ok: true; values: Obj; secretStrings?: string[] }
  | { ok: false; reason: string };

function stringLeaves(node: unknown, out: Set<string>): void {
  if (typeof node === "string") out.add(node);
  else if (Array.isArray(node)) node.forEach((n) => stringLeaves(n, out));
  else if (node && typeof node === "object") Object.values(node).forEach((n) => stringLeaves(n, out));
}

/** fluxcd/pkg chartutil.MergeMaps: maps merge key by key, anything else in `b` replaces. */
export function mergeMaps(a: Obj, b: Obj): Obj {
  const out: Obj = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] = v && typeof v === "object" && !Array.isArray(v) && prev && typeof prev === "object" && !Array.isArray(prev) ? mergeMaps(prev as Obj, v as Obj) : v;
  }
  return out;
}

/**
 * The values helm-controller would install with (chartutil.ChartValuesFromReferences):
 * each valuesFrom in order merged, then spec.values on top. A reference it
 * would fail on fails here with the same words; `targetPath` (Helm's --set
 * syntax) is not reproduced, and says so.
 */
export async function composeValues(helmRelease: Obj, read: ReadValuesSource): Promise<ComposedValues> {
  const spec = rec(helmRelease.spec);
  const namespace = str(rec(helmRelease.metadata).namespace) ?? "default";
  let result: Obj = {};
  const secretStrings = new Set<string>();
  const fetched = new Map<string, Obj | null>();
  for (const raw of Array.isArray(spec.valuesFrom) ? spec.valuesFrom : []) {
    const ref = rec(raw);
    const kind = ref.kind === "Secret" ? "Secret" : ref.kind === "ConfigMap" ? "ConfigMap" : null;
    const name = str(ref.name);
    if (!kind || !name) return { ok: false, reason: `valuesFrom: unsupported reference kind '${String(ref.kind)}'` };
    if (str(ref.targetPath)) return { ok: false, reason: `valuesFrom ${kind}/${name} uses targetPath, which Driftwatch does not compose` };
    const index = `${kind}/${name}`;
    if (!fetched.has(index)) fetched.set(index, await read(kind, namespace, name));
    const obj = fetched.get(index) ?? null;
    const optional = ref.optional === true;
    if (!obj) {
      if (optional) continue;
      return { ok: false, reason: `could not find ${kind} '${namespace}/${name}'` };
    }
    const key = str(ref.valuesKey) ?? "values.yaml";
    const data = rec(obj.data)[key];
    if (typeof data !== "string") {
      if (optional) continue;
      return { ok: false, reason: `missing key '${key}' in ${kind} '${namespace}/${name}'` };
    }
    const text = kind === "Secret" ? Buffer.from(data, "base64").toString("utf8") : data;
    // Helm reads values as YAML 1.1 through sigs.k8s.io/yaml, like kubectl reads manifests. No value goes into the message.
    const parsed = parseKubernetesYaml(text);
    if (!parsed.ok) return { ok: false, reason: `unable to read values from key '${key}' in ${kind} '${namespace}/${name}'` };
    const doc = parsed.docs[0]?.value;
    if (doc !== undefined && doc !== null && (typeof doc !== "object" || Array.isArray(doc))) {
      return { ok: false, reason: `values in key '${key}' of ${kind} '${namespace}/${name}' are not a map` };
    }
    if (kind === "Secret") stringLeaves(doc, secretStrings);
    result = mergeMaps(result, rec(doc));
  }
  return { ok: true, values: mergeMaps(result, rec(spec.values)), secretStrings: [...secretStrings] };
}

/** One entry of status.history, as helm-controller writes it (v2 Snapshot). */
export interface ReleaseSnapshot {
  version: number;
  name: string;
  namespace: string;
  chartName: string;
  chartVersion: string;
  appVersion: string | null;
  configDigest: string;
  digest: string;
  status: string;
  lastDeployed: string | null;
}

export function releaseHistoryOf(helmRelease: Obj): ReleaseSnapshot[] {
  const history = rec(helmRelease.status).history;
  return (Array.isArray(history) ? history : []).map((raw) => {
    const h = rec(raw);
    return {
      version: typeof h.version === "number" ? h.version : 0,
      name: str(h.name) ?? "",
      namespace: str(h.namespace) ?? "",
      chartName: str(h.chartName) ?? "",
      chartVersion: str(h.chartVersion) ?? "",
      appVersion: str(h.appVersion),
      configDigest: str(h.configDigest) ?? "",
      digest: str(h.digest) ?? "",
      status: str(h.status) ?? "unknown",
      lastDeployed: str(h.lastDeployed),
    };
  });
}

/** What the HelmRelease in Git asks for: its chart and version (as written: possibly a range) and the digest of its values. */
export interface DeclaredRelease {
  chart: string | null;
  /** spec.chart.spec.version; "*" (any, newest) when unset, as Flux defaults it. */
  version: string;
  /** Set when the chart comes through spec.chartRef (an OCIRepository or HelmChart): its version is the source's. */
  chartRef: string | null;
  /** helm-controller's config digest of the composed values, when they could be composed. */
  configDigest: string | null;
  /** Keyed digest of the composed values, comparable with a decoded release's configDigest. */
  keyedConfigDigest: string | null;
  /** Why the values could not be composed. */
  valuesProblem: string | null;
}

export function declaredRelease(helmRelease: Obj, values: ComposedValues, digestKey: string | Uint8Array): DeclaredRelease {
  const spec = rec(helmRelease.spec);
  const chartSpec = rec(rec(spec.chart).spec);
  const chartRef = rec(spec.chartRef);
  return {
    chart: str(chartSpec.chart),
    version: str(chartSpec.version) ?? "*",
    chartRef: str(chartRef.name) ? `${str(chartRef.kind) ?? "OCIRepository"}/${str(chartRef.name)}` : null,
    configDigest: values.ok ? helmConfigDigest(values.values) : null,
    keyedConfigDigest: values.ok ? hashBytes(Buffer.from(canonicalJson(values.values), "utf8"), digestKey) : null,
    valuesProblem: values.ok ? null : values.reason,
  };
}

export type ReleaseVerdict =
  /** `snapshot` is null when the controller keeps no history and the release in storage decided. */
  | { state: "released"; snapshot: ReleaseSnapshot | null }
  /** Git asks for something the last release does not have: an upgrade is due (or failing). */
  | { state: "pending"; snapshot: ReleaseSnapshot | null; changes: string[]; reason: string | null }
  | { state: "unknown"; reason: string };

const EXACT_VERSION = /^v?\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?$/;

/**
 * Whether the HelmRelease in Git has been released: its chart version (when
 * Git pins one; a range is the source's business) and the config digest
 * against status.history[0], the release helm-controller last made. When the
 * controller reports no history, the release found in storage stands in
 * (its chart version, and its values by keyed digest). `reason` is the controller's own account (Ready, else
 * Released condition message) of why it has not released.
 */
export function releaseVerdict(declared: DeclaredRelease, helmRelease: Obj | null, stored: { keyedConfigDigest: string; chartVersion: string } | null = null): ReleaseVerdict {
  if (declared.valuesProblem) return { state: "unknown", reason: declared.valuesProblem };
  const snapshot = helmRelease ? (releaseHistoryOf(helmRelease)[0] ?? null) : null;
  const reason = helmRelease ? controllerReason(helmRelease) : null;
  const changes: string[] = [];
  if (snapshot) {
    if (!declared.chartRef && declared.chart && !declared.chart.includes("/") && snapshot.chartName && declared.chart !== snapshot.chartName) {
      changes.push(`chart ${snapshot.chartName} → ${declared.chart}`);
    }
    if (!declared.chartRef && EXACT_VERSION.test(declared.version) && declared.version.replace(/^v/, "") !== snapshot.chartVersion.replace(/^v/, "")) {
      changes.push(`chart version ${snapshot.chartVersion} → ${declared.version}`);
    }
    if (declared.configDigest && snapshot.configDigest && declared.configDigest !== snapshot.configDigest) changes.push("values changed");
    return changes.length === 0 ? { state: "released", snapshot } : { state: "pending", snapshot, changes, reason };
  }
  if (stored && declared.keyedConfigDigest) {
    if (!declared.chartRef && EXACT_VERSION.test(declared.version) && declared.version.replace(/^v/, "") !== stored.chartVersion.replace(/^v/, "")) {
      changes.push(`chart version ${stored.chartVersion} → ${declared.version}`);
    }
    if (stored.keyedConfigDigest !== declared.keyedConfigDigest) changes.push("values changed");
    return changes.length === 0 ? { state: "released", snapshot: null } : { state: "pending", snapshot: null, changes, reason };
  }
  return { state: "pending", snapshot: null, changes: ["not installed yet"], reason };
}

function controllerReason(helmRelease: Obj): string | null {
  const conditions = (Array.isArray(rec(helmRelease.status).conditions) ? (rec(helmRelease.status).conditions as unknown[]) : []).map(rec);
  const pick = (type: string) => conditions.find((c) => c.type === type);
  const ready = pick("Ready");
  const released = pick("Released");
  const chosen = ready && ready.status !== "True" ? ready : released && released.status !== "True" ? released : (ready ?? released);
  if (!chosen) return null;
  const message = str(chosen.message);
  const condReason = str(chosen.reason);
  return message ? `${String(chosen.type)}=${String(chosen.status)}${condReason ? ` (${condReason})` : ""}: ${message}` : null;
}

/** A one-line account of a pending release, for a run's warnings. */
export function describeVerdict(ref: { namespace: string; name: string }, verdict: ReleaseVerdict): string | null {
  const label = `HelmRelease ${ref.namespace}/${ref.name}`;
  if (verdict.state === "released") return null;
  if (verdict.state === "unknown") return `${label}: cannot tell whether Git's version is released: ${verdict.reason}`;
  const last = verdict.snapshot ? `released revision ${verdict.snapshot.version} (${verdict.snapshot.chartName} ${verdict.snapshot.chartVersion})` : "nothing released";
  return `${label}: changed in Git, not released yet (${verdict.changes.join(", ")}; ${last})${verdict.reason ? `; helm-controller says ${verdict.reason}` : ""}`;
}
