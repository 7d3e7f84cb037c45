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
