import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { currentRelease, decodeReleaseSecretValue, releaseObjects, type HelmRelease } from "./release-storage";

/** What the API returns for a release Secret's `release` key: Helm's base64(gzip(JSON)), base64-encoded again by the API. */
function apiValue(release: object): string {
  const helmEncoded = zlib.gzipSync(Buffer.from(JSON.stringify(release))).toString("base64");
  return Buffer.from(helmEncoded).toString("base64");
}

const base = {
  name: "shop",
  namespace: "apps",
  version: 4,
  info: { status: "deployed", last_deployed: "2026-12-01T10:00:00Z", description: "Upgrade complete" },
  chart: { metadata: { name: "shop", version: "1.2.3", appVersion: "2.0" }, templates: [{ name: "t", data: "c2VjcmV0" }] },
  config: { db: { password: "hunter2" }, replicas: 2 },
  manifest: "---\n# Source: shop/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: flags\ndata:\n  enabled: on\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\n",
};

describe("decodeReleaseSecretValue", () => {
  it("keeps chart, revision, status and manifest, and of the values only a keyed digest independent of key order", () => {
    const r = decodeReleaseSecretValue(apiValue(base), "k");
    expect(r).toMatchObject({ name: "shop", namespace: "apps", revision: 4, status: "deployed", chart: { name: "shop", version: "1.2.3", appVersion: "2.0" }, deployedAt: "2026-12-01T10:00:00Z" });
    expect(JSON.stringify(r)).not.toContain("hunter2");
    const reordered = decodeReleaseSecretValue(apiValue({ ...base, config: { replicas: 2, db: { password: "hunter2" } } }), "k");
    expect(reordered.configDigest).toBe(r.configDigest);
    expect(decodeReleaseSecretValue(apiValue({ ...base, config: { ...base.config, replicas: 3 } }), "k").configDigest).not.toBe(r.configDigest);
    expect(decodeReleaseSecretValue(apiValue(base), "another instance").configDigest).not.toBe(r.configDigest);
  });

  it("reads an uncompressed release too, and names what is wrong with a broken one", () => {
    const plain = Buffer.from(Buffer.from(JSON.stringify(base)).toString("base64")).toString("base64");
    expect(decodeReleaseSecretValue(plain, "k").revision).toBe(4);
    const truncatedGzip = Buffer.from(zlib.gzipSync(Buffer.from(JSON.stringify(base))).subarray(0, 20).toString("base64")).toString("base64");
    expect(() => decodeReleaseSecretValue(truncatedGzip, "k")).toThrow(/does not decompress/);
    expect(() => decodeReleaseSecretValue(apiValue({ ...base, name: undefined }), "k")).toThrow(/no name, namespace or version/);
  });
});

describe("releaseObjects", () => {
  it("reads the manifest as kubectl does and puts namespaced objects in the release's namespace", () => {
    const objects = releaseObjects(decodeReleaseSecretValue(apiValue(base), "k"), (_v, kind) => kind !== "ClusterRole");
    expect(objects).toEqual([
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "flags", namespace: "apps" }, data: { enabled: true } },
      { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: "reader" } },
    ]);
  });
});

describe("currentRelease", () => {
  const rev = (revision: number, status: string) => ({ revision, status }) as HelmRelease;
  it("is the newest deployed revision; after a failed upgrade the previous one; else the newest", () => {
    expect(currentRelease([rev(1, "superseded"), rev(2, "deployed")])?.revision).toBe(2);
    expect(currentRelease([rev(1, "superseded"), rev(3, "failed"), rev(2, "deployed")])?.revision).toBe(2);
    expect(currentRelease([rev(1, "failed"), rev(2, "pending-install")])?.revision).toBe(2);
    expect(currentRelease([])).toBeNull();
  });
});

describe("currentOfSecrets / readCurrentReleases (lib/helm/release-desired)", () => {
  const secret = (name: string, version: number, status: string, labelled = true) => ({
    type: "helm.sh/release.v1",
    metadata: { name: `sh.helm.release.v1.${name}.v${version}`, labels: labelled ? { owner: "helm", name, version: String(version), status } : { owner: "helm", name } },
    data: { release: apiValue({ ...base, name, version, info: { ...base.info, status } }) },
  });

  it("chooses Helm's current revision by its labels and decodes only that one", async () => {
    const { currentOfSecrets } = await import("./release-desired");
    const broken = { ...secret("shop", 1, "superseded"), data: { release: "not base64 gzip" } };
    // A failed upgrade (v3) leaves v2 deployed; v1 would not even decode, and is not asked to.
    const r = currentOfSecrets([broken, secret("shop", 3, "failed"), secret("shop", 2, "deployed")], "k");
    expect(r.current).toMatchObject({ revision: 2, status: "deployed" });
    expect(r.history).toEqual([{ revision: 3, status: "failed" }, { revision: 2, status: "deployed" }, { revision: 1, status: "superseded" }]);
    // Without Helm's labels every revision is decoded and chosen from as decoded.
    expect(currentOfSecrets([secret("shop", 1, "superseded", false), secret("shop", 2, "deployed", false)], "k").current?.revision).toBe(2);
  });

  it("reads many releases with one list per storage namespace", async () => {
    const { readCurrentReleases } = await import("./release-desired");
    const calls: string[] = [];
    const stored: Record<string, object[]> = { apps: [secret("a", 1, "deployed"), secret("b", 1, "superseded"), secret("b", 2, "deployed")], web: [secret("c", 1, "deployed")] };
    const list = async (namespace: string, selector: string) => {
      calls.push(`${namespace}?${selector}`);
      return (stored[namespace] ?? []) as Array<Record<string, unknown>>;
    };
    const all = await readCurrentReleases(list, [{ storageNamespace: "apps", releaseName: "a" }, { storageNamespace: "apps", releaseName: "b" }, { storageNamespace: "web", releaseName: "c" }], "k");
    expect(calls).toEqual(["apps?owner=helm", "web?owner=helm,name=c"]);
    expect([...all].map(([k, v]) => [k, v.current?.revision])).toEqual([["apps/a", 1], ["apps/b", 2], ["web/c", 1]]);
  });
});
