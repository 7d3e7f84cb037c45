import { mkdirSync, rmSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GitError } from "./errors";
import { syncMirror } from "./mirror";
import { clearRenderCache, findObjectSource, plainFilesParsed, renderManifests } from "./render";
import { TestRepo, configMap, tempDir } from "./test-support/repo-fixture";
import type { RenderedObject } from "./manifests";

const DEPLOY = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  template:
    spec:
      volumes:
      - name: cfg
        configMap: {name: settings, defaultMode: 0644}
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports: [{port: 80}]
`;

const LIST = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: listed-one}
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: listed-two, namespace: elsewhere}
`;

const CLUSTER = `apiVersion: v1
kind: Namespace
metadata: {name: prod}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: reader}
rules: []
`;

// Line 5 has a tab-indented, unclosed flow sequence.
const BROKEN = `apiVersion: v1
kind: ConfigMap
metadata:
  name: broken
data: [oops
  still: broken
`;

const NOTES = `owner: platform-team
oncall: "#prod-alerts"
`;

const key = (r: RenderedObject) => {
  const m = r.object.metadata as { name: string; namespace?: string };
  return `${r.object.kind as string}/${m.namespace ?? "-"}/${m.name}`;
};

describe("renderManifests (plain)", () => {
  let repo: TestRepo;
  let mirrors: string;
  let mirror: string;
  let c1: string;

  beforeAll(async () => {
    repo = TestRepo.create("render");
    repo.write("envs/prod/deploy.yaml", DEPLOY);
    repo.write("envs/prod/list.yaml", LIST);
    repo.write("envs/prod/cluster.yaml", CLUSTER);
    repo.write("envs/prod/broken.yaml", BROKEN);
    repo.write("envs/prod/notes.yaml", NOTES);
    repo.write("envs/prod/a-settings.yaml", configMap("settings", { from: "a-settings" }));
    repo.write("envs/prod/z-settings.yaml", configMap("settings", { from: "z-settings" }, "prod"));
    repo.write("envs/prod/app.json", JSON.stringify({ apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "web" } }));
    repo.write("envs/prod/nested/deeper/extra.yml", configMap("nested", { deep: "yes" }));
    repo.write("envs/prod/README.md", "# not a manifest\n");
    repo.write("envs/staging/app.yaml", configMap("app", { env: "staging" }));
    symlinkSync("deploy.yaml", path.join(repo.dir, "envs/prod/link.yaml"));
    c1 = repo.commit("environments");
    mirrors = tempDir("render-mirrors");
    mirror = (await syncMirror({ name: "render", url: repo.dir, auth: { type: "none" } }, mirrors)).mirrorPath;
  });

  beforeEach(() => clearRenderCache());

  afterAll(() => {
    repo.cleanup();
    rmSync(mirrors, { recursive: true, force: true });
  });

  const prod = { path: "envs/prod", mode: "plain", defaultNamespace: "prod" } as const;

  it("renders every manifest under the path: multi-document, JSON, nested .yml, List expanded", async () => {
    const res = await renderManifests(mirror, c1, prod);
    expect(res.objects.map(key).sort()).toEqual(
      [
        "ClusterRole/-/reader",
        "ConfigMap/elsewhere/listed-two",
        "ConfigMap/prod/listed-one",
        "ConfigMap/prod/nested",
        "ConfigMap/prod/settings",
        "Deployment/prod/web",
        "Namespace/-/prod",
        "Service/prod/web",
        "ServiceAccount/prod/web",
      ].sort(),
    );
    const nested = res.objects.find((o) => key(o) === "ConfigMap/prod/nested")!;
    expect(nested.sourcePath).toBe("envs/prod/nested/deeper/extra.yml");
    expect(res.objects.find((o) => key(o) === "Service/prod/web")!.sourcePath).toBe("envs/prod/deploy.yaml");
    expect(res.treeHash).toBe(repo.git("rev-parse", `${c1}:envs/prod`).trim());
    expect(res.cached).toBe(false);
  });

  it("lists its inputs: the manifest files it read, sorted (not README.md, not the symbolic link), from the cache too", async () => {
    const inputs = [
      "envs/prod/a-settings.yaml",
      "envs/prod/app.json",
      "envs/prod/broken.yaml",
      "envs/prod/cluster.yaml",
      "envs/prod/deploy.yaml",
      "envs/prod/list.yaml",
      "envs/prod/nested/deeper/extra.yml",
      "envs/prod/notes.yaml",
      "envs/prod/z-settings.yaml",
    ];
    expect((await renderManifests(mirror, c1, prod)).inputs).toEqual(inputs);
    const again = await renderManifests(mirror, c1, prod);
    expect(again.cached).toBe(true);
    expect(again.inputs).toEqual(inputs);
    expect((await renderManifests(mirror, c1, { ...prod, maxFileBytes: 200 })).inputs).not.toContain("envs/prod/deploy.yaml");
  });

  it("reads octal modes the way the API server does", async () => {
    const res = await renderManifests(mirror, c1, prod);
    const deploy = res.objects.find((o) => key(o) === "Deployment/prod/web")!.object as {
      spec: { template: { spec: { volumes: { configMap: { defaultMode: number } }[] } } };
    };
    expect(deploy.spec.template.spec.volumes[0]!.configMap.defaultMode).toBe(420);
  });

  it("reports a malformed file with its path and line, and still renders the rest", async () => {
    const res = await renderManifests(mirror, c1, prod);
    const broken = res.problems.filter((p) => p.path === "envs/prod/broken.yaml");
    expect(broken).toEqual([expect.objectContaining({ severity: "error", message: expect.stringContaining("invalid YAML") })]);
    expect(broken[0]!.line).toBeGreaterThanOrEqual(5);
    expect(broken[0]!.line).toBeLessThanOrEqual(7);
    expect(res.objects.length).toBe(9);
  });

  it("skips non-Kubernetes documents and symbolic links with warnings", async () => {
    const res = await renderManifests(mirror, c1, prod);
    expect(res.problems).toContainEqual(
      expect.objectContaining({ path: "envs/prod/notes.yaml", line: 1, severity: "warning", message: expect.stringContaining("not a Kubernetes object") }),
    );
    expect(res.problems).toContainEqual(expect.objectContaining({ path: "envs/prod/link.yaml", severity: "warning" }));
  });

  it("keeps the first of duplicate objects and names both files", async () => {
    const res = await renderManifests(mirror, c1, prod);
    const settings = res.objects.find((o) => key(o) === "ConfigMap/prod/settings")!;
    expect(settings.sourcePath).toBe("envs/prod/a-settings.yaml");
    expect(settings.object.data).toEqual({ from: "a-settings" });
    expect(res.problems).toContainEqual(
      expect.objectContaining({
        severity: "error",
        path: "envs/prod/z-settings.yaml",
        message: expect.stringMatching(/duplicate.*envs\/prod\/a-settings\.yaml.*envs\/prod\/z-settings\.yaml/),
      }),
    );
  });

  it("gives namespaced objects the environment's default namespace", async () => {
    const res = await renderManifests(mirror, c1, { ...prod, defaultNamespace: "team-x" });
    expect(res.objects.map(key)).toContain("Deployment/team-x/web");
    expect(res.objects.map(key)).toContain("Namespace/-/prod");
    expect(res.objects.map(key)).toContain("ConfigMap/elsewhere/listed-two");
  });

  it("serves an unchanged tree from the cache, even at a newer commit that changed another path", async () => {
    const first = await renderManifests(mirror, c1, prod);
    expect(first.cached).toBe(false);
    const again = await renderManifests(mirror, c1, prod);
    expect(again.cached).toBe(true);
    expect(again.objects.map(key)).toEqual(first.objects.map(key));
    expect(again.problems).toEqual(first.problems);

    repo.write("envs/staging/app.yaml", configMap("app", { env: "staging-2" }));
    const c2 = repo.commit("staging only");
    await syncMirror({ name: "render", url: repo.dir, auth: { type: "none" } }, mirrors);
    const atC2 = await renderManifests(mirror, c2, prod);
    expect(atC2.cached).toBe(true);
    expect(atC2.treeHash).toBe(first.treeHash);

    // Another default namespace is another result.
    expect((await renderManifests(mirror, c2, { ...prod, defaultNamespace: "other" })).cached).toBe(false);

    repo.write("envs/prod/new.yaml", configMap("brand-new", { a: "1" }));
    const c3 = repo.commit("prod changed");
    await syncMirror({ name: "render", url: repo.dir, auth: { type: "none" } }, mirrors);
    const atC3 = await renderManifests(mirror, c3, prod);
    expect(atC3.cached).toBe(false);
    expect(atC3.objects.map(key)).toContain("ConfigMap/prod/brand-new");
  });

  it("hands out frozen objects, so one caller cannot corrupt another's cached copy", async () => {
    const res = await renderManifests(mirror, c1, prod);
    const obj = res.objects[0]!.object as { metadata: { name: string } };
    expect(() => {
      obj.metadata.name = "changed";
    }).toThrow(TypeError);
  });

  it("renders a single-file path and another environment's path", async () => {
    const one = await renderManifests(mirror, c1, { ...prod, path: "envs/prod/deploy.yaml" });
    expect(one.objects.map(key)).toEqual(["Deployment/prod/web", "Service/prod/web"]);
    const staging = await renderManifests(mirror, c1, { path: "envs/staging", mode: "plain", defaultNamespace: "staging" });
    expect(staging.objects.map(key)).toEqual(["ConfigMap/staging/app"]);
    expect(staging.problems).toEqual([]);
  });

  it("reports files over the size limit instead of reading them", async () => {
    const res = await renderManifests(mirror, c1, { ...prod, maxFileBytes: 200 });
    expect(res.problems).toContainEqual(
      expect.objectContaining({ path: "envs/prod/deploy.yaml", severity: "error", message: expect.stringContaining("over the") }),
    );
    expect(res.objects.map(key)).not.toContain("Deployment/prod/web");
  });

  it("fails with a render error for a missing path and git-missing-ref for an unknown revision", async () => {
    const missing = await renderManifests(mirror, c1, { ...prod, path: "envs/nowhere" }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(GitError);
    expect(missing).toMatchObject({ category: "render", message: expect.stringContaining("envs/nowhere") });
    await expect(renderManifests(mirror, "f".repeat(40), prod)).rejects.toMatchObject({ category: "git-missing-ref" });
  });

  describe("findObjectSource", () => {
    it("finds the file and document that define an object", async () => {
      const svc = await findObjectSource(mirror, c1, "envs/prod", { apiVersion: "v1", kind: "Service", namespace: "prod", name: "web" });
      expect(svc).toMatchObject({ file: "envs/prod/deploy.yaml", text: DEPLOY, documentIndex: 1 });
      expect(DEPLOY.slice(...svc!.range)).toContain("kind: Service");
      expect(DEPLOY.slice(...svc!.range)).not.toContain("kind: Deployment");
    });

    it("matches by API group, finds objects inside Lists, prefers an explicit namespace", async () => {
      expect(
        await findObjectSource(mirror, c1, "envs/prod", { apiVersion: "apps/v1beta2", kind: "Deployment", namespace: "prod", name: "web" }),
      ).toMatchObject({ file: "envs/prod/deploy.yaml", documentIndex: 0 });
      expect(
        await findObjectSource(mirror, c1, "envs/prod", { apiVersion: "v1", kind: "ConfigMap", namespace: "elsewhere", name: "listed-two" }),
      ).toMatchObject({ file: "envs/prod/list.yaml" });
      expect(
        await findObjectSource(mirror, c1, "envs/prod", { apiVersion: "v1", kind: "ConfigMap", namespace: "prod", name: "settings" }),
      ).toMatchObject({ file: "envs/prod/z-settings.yaml" });
      expect(
        await findObjectSource(mirror, c1, "envs/prod", { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", name: "reader" }),
      ).toMatchObject({ file: "envs/prod/cluster.yaml", documentIndex: 1 });
    });

    it("returns null when nothing under the path defines it", async () => {
      expect(await findObjectSource(mirror, c1, "envs/prod", { apiVersion: "v1", kind: "Secret", namespace: "prod", name: "web" })).toBeNull();
      expect(await findObjectSource(mirror, c1, "envs/staging", { apiVersion: "v1", kind: "Service", namespace: "prod", name: "web" })).toBeNull();
    });
  });

  describe("a render at a new commit (a push)", () => {
    it("parses only the files whose blob changed and the added ones, and gives what a render from scratch gives", async () => {
      const pushRepo = TestRepo.create("render-push");
      const pushMirrors = tempDir("render-push-mirrors");
      try {
        for (let i = 0; i < 8; i++) pushRepo.write(`app/cm-${i}.yaml`, configMap(`cm-${i}`, { v: String(i) }));
        pushRepo.write("app/deploy.yaml", DEPLOY);
        pushRepo.write("app/cluster.yaml", CLUSTER);
        pushRepo.write("app/broken.yaml", BROKEN);
        pushRepo.write("app/notes.yaml", NOTES);
        pushRepo.write("app/dup.yaml", configMap("cm-0", { v: "duplicate" }));
        const a = pushRepo.commit("application A");
        const source = { name: "render-push", url: pushRepo.dir, auth: { type: "none" } } as const;
        const pushMirror = (await syncMirror(source, pushMirrors)).mirrorPath;
        const app = { path: "app", mode: "plain", defaultNamespace: "team" } as const;

        const before = plainFilesParsed();
        const atA = await renderManifests(pushMirror, a, app);
        expect(plainFilesParsed() - before).toBe(13);
        expect(atA.objects).toHaveLength(12);

        pushRepo.write("app/cm-1.yaml", configMap("cm-1", { v: "changed" }));
        pushRepo.write("app/added.yaml", configMap("added", { v: "new" }, "elsewhere"));
        pushRepo.remove("app/cm-2.yaml");
        mkdirSync(path.join(pushRepo.dir, "app/moved"));
        pushRepo.git("mv", "app/cm-3.yaml", "app/moved/cm-3.yaml");
        const b = pushRepo.commit("application B");
        await syncMirror(source, pushMirrors);

        const parsedBeforeB = plainFilesParsed();
        const atB = await renderManifests(pushMirror, b, app);
        // cm-1 (changed) and added.yaml; the renamed file's blob is the one already parsed.
        expect(plainFilesParsed() - parsedBeforeB).toBe(2);
        // An unchanged file gives the very objects of the last render: what the collector keeps per object (hashes) is reused.
        const objectOf = (r: typeof atA, k: string) => r.objects.find((o) => key(o) === k)!.object;
        expect(objectOf(atB, "ConfigMap/team/cm-4")).toBe(objectOf(atA, "ConfigMap/team/cm-4"));
        expect(objectOf(atB, "Deployment/team/web")).toBe(objectOf(atA, "Deployment/team/web"));
        expect(Object.isFrozen(objectOf(atB, "ConfigMap/team/cm-4"))).toBe(true);

        clearRenderCache();
        const fresh = await renderManifests(pushMirror, b, app);
        expect(atB).toEqual(fresh);
        expect(atB.objects.map(key)).toContain("ConfigMap/elsewhere/added");
        expect(atB.objects.map(key)).not.toContain("ConfigMap/team/cm-2");
        expect(atB.objects.find((o) => key(o) === "ConfigMap/team/cm-1")!.object.data).toEqual({ v: "changed" });
        expect(atB.objects.find((o) => key(o) === "ConfigMap/team/cm-3")!.sourcePath).toBe("app/moved/cm-3.yaml");
        expect(atB.problems).toContainEqual(expect.objectContaining({ path: "app/broken.yaml", severity: "error" }));
        expect(atB.problems).toContainEqual(expect.objectContaining({ path: "app/dup.yaml", message: expect.stringContaining("duplicate object") }));

        // The reused documents are not changed by the renders that share them: another namespace, another result.
        const other = await renderManifests(pushMirror, b, { ...app, defaultNamespace: "other" });
        expect(other.objects.map(key)).toContain("ConfigMap/other/cm-1");
        const again = await renderManifests(pushMirror, b, app);
        expect(again.objects.map(key)).toEqual(fresh.objects.map(key));
      } finally {
        pushRepo.cleanup();
        rmSync(pushMirrors, { recursive: true, force: true });
      }
    });
  });
});
