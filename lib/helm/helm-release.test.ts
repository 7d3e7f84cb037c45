import { describe, expect, it } from "vitest";
import { helmConfigDigest } from "./config-digest";
import { composeValues, declaredRelease, describeVerdict, helmReleaseRefOf, releaseVerdict, shortenReleaseName, type ReadValuesSource } from "./helm-release";

const hr = (spec: Record<string, unknown>, status: Record<string, unknown> = {}) => ({
  apiVersion: "helm.toolkit.fluxcd.io/v2",
  kind: "HelmRelease",
  metadata: { name: "podinfo", namespace: "apps" },
  spec: { chart: { spec: { chart: "podinfo", version: "6.7.1", sourceRef: { kind: "HelmRepository", name: "charts" } } }, ...spec },
  status,
});

describe("helmReleaseRefOf (helm-controller's GetReleaseName / GetStorageNamespace)", () => {
  it.each([
    [{}, { releaseName: "podinfo", releaseNamespace: "apps", storageNamespace: "apps" }],
    [{ targetNamespace: "web" }, { releaseName: "web-podinfo", releaseNamespace: "web", storageNamespace: "apps" }],
    [{ targetNamespace: "web", releaseName: "front" }, { releaseName: "front", releaseNamespace: "web", storageNamespace: "apps" }],
    [{ storageNamespace: "helm-state" }, { releaseName: "podinfo", releaseNamespace: "apps", storageNamespace: "helm-state" }],
  ])("%j → %j", (spec, ref) => {
    expect(helmReleaseRefOf(hr(spec))).toEqual(ref);
  });

  it("shortens names over 53 characters as helm-controller does (prefix, '-', 12 hex of the SHA-256)", () => {
    const long = "a-very-long-target-namespace-name-for-a-release-with-a-long-name";
    const short = shortenReleaseName(long);
    expect(short).toHaveLength(53);
    expect(short.startsWith(long.slice(0, 40) + "-")).toBe(true);
    expect(short).toMatch(/-[0-9a-f]{12}$/);
    expect(shortenReleaseName("podinfo")).toBe("podinfo");
  });
});

describe("composeValues", () => {
  const objects: Record<string, Record<string, unknown>> = {
    "ConfigMap/apps/base": { data: { "values.yaml": "replicaCount: 1\nui:\n  color: blue\n  message: hi\ntolerations: [a]\n" } },
    "Secret/apps/creds": { data: { "values.yaml": Buffer.from("db:\n  password: hunter2\n").toString("base64"), other: Buffer.from("flag: on\n").toString("base64") } },
  };
  const read: ReadValuesSource = async (kind, namespace, name) => objects[`${kind}/${namespace}/${name}`] ?? null;

  it("merges valuesFrom in order, then spec.values on top; maps merge, lists replace", async () => {
    const composed = await composeValues(
      hr({
        valuesFrom: [
          { kind: "ConfigMap", name: "base" },
          { kind: "Secret", name: "creds" },
          { kind: "Secret", name: "creds", valuesKey: "other" },
          { kind: "ConfigMap", name: "absent", optional: true },
        ],
        values: { ui: { color: "red" }, tolerations: [] },
      }),
      read,
    );
    // What came from the Secret is named, so it can be masked wherever the chart puts it outside a Secret.
    expect(composed).toEqual({ ok: true, values: { replicaCount: 1, ui: { color: "red", message: "hi" }, tolerations: [], db: { password: "hunter2" }, flag: true }, secretStrings: ["hunter2"] });
  });

  it("fails where helm-controller fails, without any value in the message", async () => {
    expect(await composeValues(hr({ valuesFrom: [{ kind: "ConfigMap", name: "absent" }] }), read)).toEqual({ ok: false, reason: "could not find ConfigMap 'apps/absent'" });
    expect(await composeValues(hr({ valuesFrom: [{ kind: "Secret", name: "creds", valuesKey: "nope" }] }), read)).toEqual({ ok: false, reason: "missing key 'nope' in Secret 'apps/creds'" });
    const targetPath = await composeValues(hr({ valuesFrom: [{ kind: "Secret", name: "creds", targetPath: "db.password" }] }), read);
    expect(targetPath.ok).toBe(false);
  });
});

describe("releaseVerdict", () => {
  const values = { replicaCount: 2 };
  const snapshot = (over: Record<string, unknown> = {}) => ({ version: 3, name: "podinfo", namespace: "apps", chartName: "podinfo", chartVersion: "6.7.1", configDigest: helmConfigDigest(values), digest: "sha256:x", status: "deployed", ...over });
  const notReady = { conditions: [{ type: "Ready", status: "False", reason: "UpgradeFailed", message: "Helm upgrade failed: timed out waiting for the condition" }] };

  it("is released when chart version and config digest equal status.history[0]", () => {
    const git = hr({ values });
    const v = releaseVerdict(declaredRelease(git, { ok: true, values }, "k"), hr({ values }, { history: [snapshot()] }));
    expect(v.state).toBe("released");
    expect(describeVerdict({ namespace: "apps", name: "podinfo" }, v)).toBeNull();
  });

  it("is pending, with what changed and the controller's reason, when Git asks for other values or another version", () => {
    const git = hr({ values: { replicaCount: 3 }, chart: { spec: { chart: "podinfo", version: "6.8.0" } } });
    const v = releaseVerdict(declaredRelease(git, { ok: true, values: { replicaCount: 3 } }, "k"), hr({}, { history: [snapshot()], ...notReady }));
    expect(v).toMatchObject({ state: "pending", changes: ["chart version 6.7.1 → 6.8.0", "values changed"], reason: "Ready=False (UpgradeFailed): Helm upgrade failed: timed out waiting for the condition" });
    expect(describeVerdict({ namespace: "apps", name: "podinfo" }, v)).toBe(
      "HelmRelease apps/podinfo: changed in Git, not released yet (chart version 6.7.1 → 6.8.0, values changed; released revision 3 (podinfo 6.7.1)); helm-controller says Ready=False (UpgradeFailed): Helm upgrade failed: timed out waiting for the condition",
    );
  });

  it("leaves a version range to the source and compares the values only", () => {
    const git = hr({ values, chart: { spec: { chart: "podinfo", version: "6.x" } } });
    expect(releaseVerdict(declaredRelease(git, { ok: true, values }, "k"), hr({}, { history: [snapshot()] })).state).toBe("released");
  });

  it("without history, falls back to the keyed digest of the release in storage", () => {
    const declared = declaredRelease(hr({ values }), { ok: true, values }, "k");
    expect(releaseVerdict(declared, hr({}), { keyedConfigDigest: declared.keyedConfigDigest as string, chartVersion: "6.7.1" })).toEqual({ state: "released", snapshot: null });
    expect(releaseVerdict(declared, hr({}), { keyedConfigDigest: "hmac-sha256:other", chartVersion: "6.7.0" })).toMatchObject({ state: "pending", changes: ["chart version 6.7.0 → 6.7.1", "values changed"] });
    expect(releaseVerdict(declared, null)).toMatchObject({ state: "pending", changes: ["not installed yet"] });
  });

  it("says it cannot tell when the values cannot be composed", () => {
    expect(releaseVerdict(declaredRelease(hr({}), { ok: false, reason: "could not find ConfigMap 'apps/x'" }, "k"), hr({}, { history: [snapshot()] }))).toEqual({ state: "unknown", reason: "could not find ConfigMap 'apps/x'" });
  });
});
