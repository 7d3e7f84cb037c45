// The desired state of a Flux HelmRelease: the manifest of the release Helm
// last installed, read from its storage in the cluster. That manifest is
// what Helm applied after helm-controller's post-renderers (its own
// `helm.toolkit.fluxcd.io/name|namespace` labels, spec.postRenderers,
// commonMetadata), without hooks (Helm keeps them apart and deletes or leaves
// them by policy) and without the chart's crds/ folder (installed or not by
// the HelmRelease's crds policy, never part of a release manifest) — so it is
// compared with live as it is, with no re-rendering and no guess.
import { currentRelease, decodeReleaseSecretValue, HELM_RELEASE_SECRET_TYPE, HelmReleaseDecodeError, releaseObjects, type HelmRelease } from "./release-storage";
import { composeValues, declaredRelease, describeVerdict, helmReleaseRefOf, releaseHistoryOf, releaseVerdict, type DeclaredRelease, type HelmReleaseRef, type ReadValuesSource, type ReleaseVerdict } from "./helm-release";
import { valuesDiff, type ValuesDiffEntry } from "./values-diff";

type Obj = Record<string, unknown>;

/** Lists Secrets of one namespace matching a label selector (the API's list, items as returned). */
export type ListSecrets = (namespace: string, labelSelector: string) => Promise<Obj[]>;

/** One stored revision as Helm's labels on its Secret describe it (no decoding needed). */
export interface StoredRevision {
  revision: number;
  status: string;
}

/**
 * The current release (Helm's choice: the newest `deployed` revision, else
 * the newest) among one release's Secrets, and its stored revisions, decoding
 * only the current one: Helm labels every release Secret with its `version`
 * and `status`, so the others need not be decompressed and parsed. Secrets
 * without those labels (written by something else than Helm) are all decoded
 * and chosen from as decoded.
 */
export function currentOfSecrets(items: Obj[], digestKey: string | Uint8Array): { current: HelmRelease | null; history: StoredRevision[] } {
  const releases = items.filter((i) => i.type === HELM_RELEASE_SECRET_TYPE);
  const labelled = releases.map((item) => {
    const labels = ((item.metadata as Obj | undefined)?.labels ?? {}) as Record<string, unknown>;
    return { item, revision: Number(labels.version), status: typeof labels.status === "string" ? labels.status : "" };
  });
  const decode = (item: Obj) => {
    const value = (item.data as Record<string, unknown> | undefined)?.release;
    return typeof value === "string" ? decodeReleaseSecretValue(value, digestKey) : null;
  };
  if (labelled.some((l) => !Number.isInteger(l.revision) || !l.status)) {
    const decoded = releases.map(decode).filter((r): r is HelmRelease => r !== null);
    return { current: currentRelease(decoded), history: decoded.map((r) => ({ revision: r.revision, status: r.status })).sort((a, b) => b.revision - a.revision) };
  }
  const newestFirst = labelled.sort((a, b) => b.revision - a.revision);
  const chosen = newestFirst.find((l) => l.status === "deployed") ?? newestFirst[0];
  return { current: chosen ? decode(chosen.item) : null, history: newestFirst.map((l) => ({ revision: l.revision, status: l.status })) };
}

/** One release's current revision and history, with Helm's own selector. */
export async function readCurrentRelease(
  listSecrets: ListSecrets,
  ref: Pick<HelmReleaseRef, "releaseName" | "storageNamespace">,
  digestKey: string | Uint8Array,
): Promise<{ current: HelmRelease | null; history: StoredRevision[] }> {
  return currentOfSecrets(await listSecrets(ref.storageNamespace, `owner=helm,name=${ref.releaseName}`), digestKey);
}

/**
 * Many releases at once (an environment holding many HelmReleases): one list
 * per storage namespace (`owner=helm`) instead of one per release, grouped by
 * Helm's `name` label. Keyed `storageNamespace/releaseName`.
 */
export async function readCurrentReleases(
  listSecrets: ListSecrets,
  refs: ReadonlyArray<Pick<HelmReleaseRef, "releaseName" | "storageNamespace">>,
  digestKey: string | Uint8Array,
): Promise<Map<string, { current: HelmRelease | null; history: StoredRevision[] }>> {
  const byNamespace = new Map<string, Set<string>>();
  for (const r of refs) byNamespace.set(r.storageNamespace, (byNamespace.get(r.storageNamespace) ?? new Set()).add(r.releaseName));
  const out = new Map<string, { current: HelmRelease | null; history: StoredRevision[] }>();
  for (const [namespace, names] of byNamespace) {
    if (names.size === 1) {
      const name = [...names][0] as string;
      out.set(`${namespace}/${name}`, await readCurrentRelease(listSecrets, { storageNamespace: namespace, releaseName: name }, digestKey));
      continue;
    }
    const grouped = new Map<string, Obj[]>([...names].map((n) => [n, []]));
    for (const item of await listSecrets(namespace, "owner=helm")) {
      const name = (((item.metadata as Obj | undefined)?.labels ?? {}) as Record<string, unknown>).name;
      if (typeof name === "string") grouped.get(name)?.push(item);
    }
    for (const [name, items] of grouped) out.set(`${namespace}/${name}`, currentOfSecrets(items, digestKey));
  }
  return out;
}

export interface HelmReleaseDesired {
  ref: HelmReleaseRef;
  /** The release whose manifest is the desired state (null: nothing installed yet). */
  release: HelmRelease | null;
  /** Stored revisions, newest first: the release history. */
  history: StoredRevision[];
  /** The release manifest's objects, namespaced ones defaulted to the release's namespace. */
  objects: Obj[];
  /** What Git's HelmRelease asks for, when Git has one. */
  declared: DeclaredRelease | null;
  /** Git's HelmRelease against what was released. */
  verdict: ReleaseVerdict | null;
  /** A sentence for the run when Git's version is not (known to be) released. */
  message: string | null;
  /** String values Git's HelmRelease takes from Secrets (valuesFrom): masked wherever they land outside a Secret. In memory only. */
  secretValues: string[];
  /** Where Git's values and the release's differ (Git's side masked where it could be a secret). */
  valuesDiff: { entries: ValuesDiffEntry[]; total: number } | null;
  /** What the page shows: no values, no manifest. */
  summary: HelmReleaseSummary;
}

/** A HelmRelease environment's release, for the environment page: chart, version, verdict, values diff and history. */
export interface HelmReleaseSummary {
  releaseName: string;
  releaseNamespace: string;
  storageNamespace: string;
  released: { revision: number; status: string; chart: { name: string; version: string; appVersion: string | null }; deployedAt: string | null } | null;
  declared: { chart: string | null; version: string; chartRef: string | null } | null;
  verdict: { state: "released" | "pending" | "unknown"; changes: string[]; reason: string | null } | null;
  valuesDiff: { entries: ValuesDiffEntry[]; total: number } | null;
  /** Newest first: helm-controller's history where it keeps one (chart versions), else Helm's storage labels. */
  history: Array<{ revision: number; status: string; chartVersion: string | null; deployedAt: string | null }>;
}

export interface HelmReleaseDesiredInput {
  /** The HelmRelease as the cluster has it (its status carries the history); null when it is not there. */
  live: Obj | null;
  /** The HelmRelease as Git declares it (at the revision compared); null when Git has none. */
  declared: Obj | null;
  listSecrets: ListSecrets;
  readValues: ReadValuesSource;
  isNamespaced: (apiVersion: string, kind: string) => boolean;
  digestKey: string | Uint8Array;
}

export async function helmReleaseDesired(input: HelmReleaseDesiredInput): Promise<HelmReleaseDesired> {
  // The cluster's object decides where the release is (Git's may be ahead of it), Git's when the cluster has none yet.
  const basis = input.live ?? input.declared;
  if (!basis) throw new HelmReleaseDecodeError("no HelmRelease in the cluster or in Git");
  const ref = helmReleaseRefOf(basis);
  const { current: release, history } = await readCurrentRelease(input.listSecrets, ref, input.digestKey);
  const objects = release ? releaseObjects(release, input.isNamespaced) : [];
  let declared: DeclaredRelease | null = null;
  let verdict: ReleaseVerdict | null = null;
  let secretValues: string[] = [];
  let diff: HelmReleaseDesired["valuesDiff"] = null;
  if (input.declared) {
    const composed = await composeValues(input.declared, input.readValues);
    if (composed.ok) secretValues = composed.secretStrings ?? [];
    if (composed.ok && release) diff = valuesDiff(composed.values, secretValues, release.configLeaves, input.digestKey);
    declared = declaredRelease(input.declared, composed, input.digestKey);
    verdict = releaseVerdict(declared, input.live, release ? { keyedConfigDigest: release.configDigest, chartVersion: release.chart.version } : null);
  }
  const metadata = (basis.metadata ?? {}) as Obj;
  const message = verdict ? describeVerdict({ namespace: String(metadata.namespace ?? ""), name: String(metadata.name ?? "") }, verdict) : null;
  const snapshots = input.live ? releaseHistoryOf(input.live) : [];
  const summary: HelmReleaseSummary = {
    ...ref,
    released: release ? { revision: release.revision, status: release.status, chart: release.chart, deployedAt: release.deployedAt } : null,
    declared: declared ? { chart: declared.chart, version: declared.version, chartRef: declared.chartRef } : null,
    verdict: verdict ? { state: verdict.state, changes: verdict.state === "pending" ? verdict.changes : [], reason: verdict.state === "released" ? null : verdict.reason } : null,
    valuesDiff: diff,
    history:
      snapshots.length > 0
        ? snapshots.map((s) => ({ revision: s.version, status: s.status, chartVersion: s.chartVersion || null, deployedAt: s.lastDeployed }))
        : history.map((h) => ({ revision: h.revision, status: h.status, chartVersion: h.revision === release?.revision ? release.chart.version : null, deployedAt: h.revision === release?.revision ? release.deployedAt : null })),
  };
  return { ref, release, history, objects, declared, verdict, message, secretValues, valuesDiff: diff, summary };
}
