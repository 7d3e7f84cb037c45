// The desired state of a Flux HelmRelease: the manifest of the release Helm
// last installed, read from its storage in the cluster. That manifest is
// what Helm applied after helm-controller's post-renderers (its own
// `helm.toolkit.fluxcd.io/name|namespace` labels, spec.postRenderers,
// commonMetadata), without hooks (Helm keeps them apart and deletes or leaves
// them by policy) and without the chart's crds/ folder (installed or not by
// the HelmRelease's crds policy, never part of a release manifest) — so it is
// compared with live as it is, with no re-rendering and no guess.
import { currentRelease, decodeReleaseSecretValue, HELM_RELEASE_SECRET_TYPE, HelmReleaseDecodeError, releaseObjects, type HelmRelease } from "./release-storage";
import { composeValues, declaredRelease, describeVerdict, helmReleaseRefOf, releaseVerdict, type DeclaredRelease, type HelmReleaseRef, type ReadValuesSource, type ReleaseVerdict } from "./helm-release";

type Obj = Record<string, unknown>;

/** Lists Secrets of one namespace matching a label selector (the API's list, items as returned). */
export type ListSecrets = (namespace: string, labelSelector: string) => Promise<Obj[]>;

/** Every stored revision of one release (Helm's own selector: owner=helm, name=<release>), decoded; values become a keyed digest. */
export async function readReleaseRevisions(listSecrets: ListSecrets, ref: Pick<HelmReleaseRef, "releaseName" | "storageNamespace">, digestKey: string | Uint8Array): Promise<HelmRelease[]> {
  const items = await listSecrets(ref.storageNamespace, `owner=helm,name=${ref.releaseName}`);
  const revisions: HelmRelease[] = [];
  for (const item of items) {
    if (item.type !== HELM_RELEASE_SECRET_TYPE) continue;
    const value = (item.data as Record<string, unknown> | undefined)?.release;
    if (typeof value !== "string") continue;
    revisions.push(decodeReleaseSecretValue(value, digestKey));
  }
  return revisions.sort((a, b) => b.revision - a.revision);
}

export interface HelmReleaseDesired {
  ref: HelmReleaseRef;
  /** The release whose manifest is the desired state (null: nothing installed yet). */
  release: HelmRelease | null;
  /** Stored revisions, newest first: the release history (no values). */
  revisions: HelmRelease[];
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
  const revisions = await readReleaseRevisions(input.listSecrets, ref, input.digestKey);
  const release = currentRelease(revisions);
  const objects = release ? releaseObjects(release, input.isNamespaced) : [];
  let declared: DeclaredRelease | null = null;
  let verdict: ReleaseVerdict | null = null;
  let secretValues: string[] = [];
  if (input.declared) {
    const composed = await composeValues(input.declared, input.readValues);
    if (composed.ok) secretValues = composed.secretStrings ?? [];
    declared = declaredRelease(input.declared, composed, input.digestKey);
    verdict = releaseVerdict(declared, input.live, release ? { keyedConfigDigest: release.configDigest, chartVersion: release.chart.version } : null);
  }
  const metadata = (basis.metadata ?? {}) as Obj;
  const message = verdict ? describeVerdict({ namespace: String(metadata.namespace ?? ""), name: String(metadata.name ?? "") }, verdict) : null;
  return { ref, release, revisions, objects, declared, verdict, message, secretValues };
}
