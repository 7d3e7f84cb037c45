import { describe, expect, it } from "vitest";
import { normalizeObject } from "./normalize";
import { b64, desiredDeployment, liveDeployment, secret } from "./test-fixtures";

describe("normalizeObject", () => {
  it("drops status and server metadata, keeps identity, spells quantities one way", () => {
    const n = normalizeObject(liveDeployment()) as Record<string, unknown> & { metadata: Record<string, unknown> };
    expect(n.status).toBeUndefined();
    expect(Object.keys(n.metadata).sort()).toEqual(["labels", "name", "namespace"]);
    const c = ((((n.spec as Record<string, unknown>).template as Record<string, unknown>).spec as Record<string, unknown>).containers as Record<string, unknown>[])[0];
    expect(c?.resources).toEqual({ limits: { memory: "536870912" }, requests: { cpu: "250m", memory: "268435456" } });
  });

  it("a Git manifest and its live object normalise equal once defaults are dropped (labels injected by the controller aside)", () => {
    const live = liveDeployment();
    delete (live.metadata.labels as Record<string, string>)["kustomize.toolkit.fluxcd.io/name"];
    delete (live.metadata.labels as Record<string, string>)["kustomize.toolkit.fluxcd.io/namespace"];
    const desired = desiredDeployment({ cpuRequest: 0.25, memoryLimit: "0.5Gi" });
    expect(JSON.stringify(normalizeObject(live, { dropDefaults: true }))).toBe(JSON.stringify(normalizeObject(desired, { dropDefaults: true })));
  });

  it("never returns a Secret value: hashed with a key, hidden without", () => {
    const s = secret({ a: b64("topsecret") }, { b: "plain" });
    const hidden = normalizeObject(s);
    expect(hidden.data).toEqual({ a: "(hidden)", b: "(hidden)" });
    expect(hidden.stringData).toBeUndefined();
    const hashed = normalizeObject(s, { secretKey: "k" });
    expect(JSON.stringify(hashed)).not.toContain("topsecret");
    expect(JSON.stringify(hashed)).not.toContain(b64("topsecret"));
    expect(Object.values(hashed.data as Record<string, string>).every((v) => v.startsWith("sha256-hmac:"))).toBe(true);
  });
});
