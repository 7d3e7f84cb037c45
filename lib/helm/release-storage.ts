// Helm's release storage, read the way `helm get manifest` reads it: one
// Secret per release revision (type helm.sh/release.v1, labels owner=helm,
// name, version, status), whose `release` key holds base64(gzip(JSON)) of the
// release — and the Kubernetes API base64-encodes Secret data once more.
//
// The release's `config` (the values it was installed with) can hold
// passwords: nothing here keeps it. It becomes a keyed digest, so "the values
// changed" can be told without the values ever leaving the collector.
import zlib from "node:zlib";
import { hashBytes } from "@/lib/drift/secrets";
import { parseKubernetesYaml } from "@/lib/git/k8s-yaml";
import { canonicalJson } from "@/lib/audit/canonical";
import { leafDigests } from "./values-diff";

export { canonicalJson };

export const HELM_RELEASE_SECRET_TYPE = "helm.sh/release.v1";

type Obj = Record<string, unknown>;

/** What Driftwatch keeps of one release revision: no values, no chart templates. */
export interface HelmRelease {
  name: string;
  namespace: string;
  /** The release revision (1, 2, …), as `helm history` numbers them. */
  revision: number;
  /** deployed, superseded, failed, pending-install, pending-upgrade, pending-rollback, uninstalling, uninstalled. */
  status: string;
  chart: { name: string; version: string; appVersion: string | null };
  /** Keyed digest of the values the release was installed with (never the values). */
  configDigest: string;
  /** Keyed digest of each leaf of those values, by path (`ui.message`): what changed can be told, not what it was. */
  configLeaves: Record<string, string>;
  /** When Helm last deployed this revision (ISO 8601), when it says. */
  deployedAt: string | null;
  description: string | null;
  /** The rendered manifest Helm applied: the release's desired state. */
  manifest: string;
}

export class HelmReleaseDecodeError extends Error {}

const GZIP_MAGIC = [0x1f, 0x8b];

/** Decodes the `release` value of a release Secret as the API returns it (base64 of Helm's own base64). */
export function decodeReleaseSecretValue(apiValue: string, digestKey: string | Uint8Array): HelmRelease {
  let helmEncoded: Buffer;
  try {
    helmEncoded = Buffer.from(Buffer.from(apiValue, "base64").toString("latin1"), "base64");
  } catch {
    throw new HelmReleaseDecodeError("the release value is not base64");
  }
  // Helm gzips since 2.x; an uncompressed JSON body is still accepted by its decoder.
  const json = helmEncoded[0] === GZIP_MAGIC[0] && helmEncoded[1] === GZIP_MAGIC[1] ? gunzip(helmEncoded) : helmEncoded;
  let parsed: Obj;
  try {
    parsed = JSON.parse(json.toString("utf8")) as Obj;
  } catch {
    throw new HelmReleaseDecodeError("the release is not the JSON Helm writes");
  }
  const info = (parsed.info ?? {}) as Obj;
  const metadata = (((parsed.chart ?? {}) as Obj).metadata ?? {}) as Obj;
  const name = str(parsed.name);
  const namespace = str(parsed.namespace);
  const revision = typeof parsed.version === "number" ? parsed.version : Number(parsed.version);
  if (!name || !namespace || !Number.isInteger(revision)) throw new HelmReleaseDecodeError("the release has no name, namespace or version");
  return {
    name,
    namespace,
    revision,
    status: str(info.status) ?? "unknown",
    chart: { name: str(metadata.name) ?? "", version: str(metadata.version) ?? "", appVersion: str(metadata.appVersion) },
    configDigest: hashBytes(Buffer.from(canonicalJson(parsed.config ?? {}), "utf8"), digestKey),
    configLeaves: leafDigests(parsed.config ?? {}, digestKey),
    deployedAt: str(info.last_deployed),
    description: str(info.description),
    manifest: str(parsed.manifest) ?? "",
  };
}

function gunzip(bytes: Buffer): Buffer {
  try {
    // A release manifest is text; 64 MiB is far beyond any Helm release (etcd refuses objects over 1.5 MiB compressed).
    return zlib.gunzipSync(bytes, { maxOutputLength: 64 * 1024 * 1024 });
  } catch (e) {
    throw new HelmReleaseDecodeError(`the release does not decompress: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * The release Helm considers current among one release's revisions: the newest
 * `deployed` one (Helm's `Deployed()` query), else the newest of any status —
 * a failed upgrade leaves the previous revision deployed.
 */
export function currentRelease(revisions: HelmRelease[]): HelmRelease | null {
  const newestFirst = [...revisions].sort((a, b) => b.revision - a.revision);
  return newestFirst.find((r) => r.status === "deployed") ?? newestFirst[0] ?? null;
}

/**
 * The objects a release's manifest declares, as Helm applies them: namespaced
 * objects without a namespace land in the release's namespace. Which kinds are
 * cluster-scoped comes from the caller (the cluster's discovery).
 */
export function releaseObjects(release: HelmRelease, isNamespaced: (apiVersion: string, kind: string) => boolean): Obj[] {
  // Helm applies its manifest through the same decoder as kubectl (YAML 1.1: `on` is true, dates stay strings).
  const parsed = parseKubernetesYaml(release.manifest);
  if (!parsed.ok) throw new HelmReleaseDecodeError(`release ${release.namespace}/${release.name} v${release.revision}: ${parsed.message}`);
  const objects: Obj[] = [];
  for (const { value } of parsed.docs) {
    const obj = value as Obj | null;
    if (!obj || typeof obj !== "object" || !obj.kind) continue;
    const metadata = { ...((obj.metadata ?? {}) as Obj) };
    if (!metadata.namespace && isNamespaced(String(obj.apiVersion ?? ""), String(obj.kind))) metadata.namespace = release.namespace;
    objects.push({ ...obj, metadata });
  }
  return objects;
}

const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);
