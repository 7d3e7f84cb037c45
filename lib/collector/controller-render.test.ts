import { describe, expect, it } from "vitest";
import { parseConfig, type ApplicationEnvironment } from "@/lib/config";
import { controllerRenderFor, maskLiveSecretSourced, maskSecretSourced, secretDerivedPaths, SubstituteSourceError, type ReadObject } from "./controller-render";

function env(source: Record<string, unknown>, controller?: Record<string, unknown>): ApplicationEnvironment {
  const config = parseConfig(
    JSON.stringify({
      repositories: [{ name: "r", url: "/tmp/r" }],
      environments: [{ name: "e", cluster: { inCluster: true }, source: { repository: "r", path: "apps", ...source }, ...(controller ? { controller } : {}) }],
    }),
  );
  const e = config.environments[0]!;
  return { ...e, source: e.source! };
}

const b64 = (s: string) => Buffer.from(s).toString("base64");
const cluster: Record<string, Record<string, unknown>> = {
  "ConfigMap/flux-system/vars": { data: { region: "eu", shared: "from-configmap" } },
  "Secret/flux-system/creds": { data: { password: b64("hunter2-long\n"), shared: b64("from-secret") } },
};
const read: ReadObject = async (kind, ns, name) => cluster[`${kind}/${ns}/${name}`] ?? null;
const kustomization = (postBuild: unknown) => ({ metadata: { name: "apps", namespace: "flux-system" }, spec: { path: "./apps", postBuild } });

describe("controllerRenderFor", () => {
  it("the object in the cluster wins over driftwatch.yaml", async () => {
    const e = env({ flux: { namePrefix: "from-config-" } }, { type: "flux", name: "apps" });
    expect((await controllerRenderFor(e, { spec: { namePrefix: "from-cluster-" } }, read)).render).toEqual({ type: "flux", spec: { namePrefix: "from-cluster-" } });
    expect((await controllerRenderFor(e, null, read)).render).toEqual({ type: "flux", spec: { namePrefix: "from-config-" } });
  });

  it("the GitRepository's spec.ignore travels with the render", async () => {
    const e = env({}, { type: "flux", name: "apps" });
    const r = await controllerRenderFor(e, { spec: {} }, read, { spec: { ignore: "/*\n!/apps\n" } });
    expect(r.render).toEqual({ type: "flux", spec: {}, sourceIgnore: "/*\n!/apps\n" });
  });

  it("no controller and no settings: render as configured", async () => {
    expect((await controllerRenderFor(env({}), null, read)).render).toBeUndefined();
    expect((await controllerRenderFor(env({ argocd: { directory: { recurse: true } } }), null, read)).render).toEqual({ type: "argocd", directory: { recurse: true }, env: { sourcePath: "apps" } });
  });

  it("variables: sources in order, Secret data decoded, inline substitute last; Secret values listed for masking", async () => {
    const e = env({}, { type: "flux", name: "apps" });
    const r = await controllerRenderFor(e, kustomization({ substitute: { region: "inline" }, substituteFrom: [{ kind: "ConfigMap", name: "vars" }, { kind: "Secret", name: "creds" }] }), read);
    expect(r.render?.type === "flux" && Object.fromEntries(r.render.variables ?? [])).toEqual({ region: "inline", shared: "from-secret", password: "hunter2-long" });
    expect(r.secretValues).toEqual(["hunter2-long", "from-secret"]);
  });

  it("a missing source fails unless optional, naming it and nothing it holds", async () => {
    const e = env({}, { type: "flux", name: "apps" });
    const missing = kustomization({ substituteFrom: [{ kind: "Secret", name: "gone" }] });
    await expect(controllerRenderFor(e, missing, read)).rejects.toThrow(SubstituteSourceError);
    await expect(controllerRenderFor(e, missing, read)).rejects.toThrow("substitute from 'Secret/gone' error");
    const optional = kustomization({ substituteFrom: [{ kind: "Secret", name: "gone", optional: true }] });
    expect((await controllerRenderFor(e, optional, read)).render).toMatchObject({ type: "flux", variables: new Map() });
  });
});

describe("the controller's folder", () => {
  it.each([
    [{ spec: { path: "./apps" } }, undefined],
    [{ spec: { path: "apps/" } }, undefined],
    [{ spec: { path: "./clusters/prod" } }, 'the Kustomization renders "clusters/prod" but source.path is "apps"; Driftwatch renders source.path'],
  ])("Flux %j: %s", async (obj, expected) => {
    expect((await controllerRenderFor(env({}, { type: "flux", name: "apps" }), obj, read)).pathMismatch).toBe(expected);
  });

  it("Argo CD: any of its sources at the path", async () => {
    const app = { spec: { sources: [{ path: "charts/x" }, { path: "apps" }] } };
    expect((await controllerRenderFor(env({}, { type: "argocd", name: "a" }), app, read)).pathMismatch).toBeUndefined();
    expect((await controllerRenderFor(env({}, { type: "argocd", name: "a" }), { spec: { source: { path: "other" } } }, read)).pathMismatch).toContain('renders "other"');
  });
});

describe("masking Secret-sourced values outside Secrets", () => {
  const key = Buffer.from("k".repeat(32));
  const desired = { kind: "Deployment", spec: { env: [{ name: "A", value: "plain" }, { name: "DB", value: "postgres://u:hunter2-long@db" }] } };

  it("replaces the whole string by a keyed hash, leaves the rest, and finds the same paths again", () => {
    const { object, paths } = maskSecretSourced(desired, ["hunter2-long"], key);
    expect(JSON.stringify(object)).not.toContain("hunter2-long");
    expect(object.spec.env[0]).toBe(desired.spec.env[0]);
    expect(paths).toEqual([["spec", "env", 1, "value"]]);
    expect(secretDerivedPaths([{ key: "k", object }])).toEqual(new Map([["k", paths]]));
    // Live equal to desired masks equal; live holding an older value masks differently and shows nothing of it.
    expect(maskLiveSecretSourced(desired, ["hunter2-long"], paths, key)).toEqual(object);
    const old = { ...desired, spec: { env: [desired.spec.env[0], { name: "DB", value: "postgres://u:old-value-1@db" }] } };
    const liveMasked = maskLiveSecretSourced(old, ["hunter2-long"], paths, key);
    expect(JSON.stringify(liveMasked)).not.toContain("old-value-1");
    expect(liveMasked).not.toEqual(object);
  });

  it("nothing to mask: the very same object", () => {
    expect(maskSecretSourced(desired, [], key).object).toBe(desired);
    expect(maskLiveSecretSourced(desired, [], [], key)).toBe(desired);
  });
});
