import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resetEnvCache } from "@/lib/env";
import { GitError } from "./errors";
import { findKustomize } from "./kustomize";
import { requiredKustomize } from "@/test/support/required-tools";
import { syncMirror } from "./mirror";
import { clearRenderCache, RenderRefusedError, renderManifests } from "./render";
import { TestRepo, configMap, tempDir } from "./test-support/repo-fixture";
import type { RenderedObject } from "./manifests";

const bin = requiredKustomize();

const BASE_DEPLOY = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: example/web:1.0
`;

const key = (r: RenderedObject) => {
  const m = r.object.metadata as { name: string; namespace?: string };
  return `${r.object.kind as string}/${m.namespace ?? "-"}/${m.name}`;
};

describe("kustomize binary lookup", () => {
  let emptyPath: string;
  const savedPath = process.env.PATH;

  beforeAll(() => {
    emptyPath = tempDir("no-kustomize");
    // git stays reachable; kustomize and kubectl do not.
    const git = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
    symlinkSync(git, path.join(emptyPath, "git"));
  });

  afterAll(() => {
    process.env.PATH = savedPath;
    resetEnvCache();
    rmSync(emptyPath, { recursive: true, force: true });
  });

  it("says what to install when neither kustomize nor kubectl is on PATH", async () => {
    const repo = TestRepo.create("kustomize-missing");
    const mirrors = tempDir("kustomize-missing-mirrors");
    try {
      repo.write("app/kustomization.yaml", "resources: [cm.yaml]\n").write("app/cm.yaml", configMap("c", { a: "1" }));
      const sha = repo.commit("app");
      const { mirrorPath } = await syncMirror({ name: "km", url: repo.dir, auth: { type: "none" } }, mirrors);
      process.env.PATH = emptyPath;
      resetEnvCache();
      const err = await renderManifests(mirrorPath, sha, { path: "app", mode: "kustomize", defaultNamespace: "d" }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GitError);
      expect(err).toMatchObject({ category: "render", message: expect.stringMatching(/install kustomize.*kubectl.*KUSTOMIZE_BIN/) });
    } finally {
      process.env.PATH = savedPath;
      resetEnvCache();
      repo.cleanup();
      rmSync(mirrors, { recursive: true, force: true });
    }
  });

  it("rejects a configured binary that does not exist", () => {
    expect(() => findKustomize("/nonexistent/kustomize")).toThrow(/"\/nonexistent\/kustomize" \(KUSTOMIZE_BIN\) is not an executable/);
  });
});

describe("renderManifests (kustomize, real binary)", () => {
  let repo: TestRepo;
  let mirrors: string;
  let mirror: string;
  let sha: string;
  let outside: string;

  const sync = async () => {
    mirror = (await syncMirror({ name: "kust", url: repo.dir, auth: { type: "none" } }, mirrors)).mirrorPath;
  };

  beforeAll(async () => {
    outside = tempDir("host-secret");
    writeFileSync(path.join(outside, "secret.txt"), "HOST-ONLY-SECRET\n");
    repo = TestRepo.create("kustomize");
    repo.write("base/deploy.yaml", BASE_DEPLOY);
    repo.write("base/settings.yaml", configMap("settings", { level: "info" }));
    repo.write("base/kustomization.yaml", "resources:\n- deploy.yaml\n- settings.yaml\n");
    repo.write(
      "overlays/prod/kustomization.yaml",
      [
        "resources:",
        "- ../../base",
        "- namespace.yaml",
        "patches:",
        "- target: {kind: Deployment, name: web}",
        "  patch: |-",
        "    - op: replace",
        "      path: /spec/replicas",
        "      value: 5",
        "- patch: |-",
        "    apiVersion: v1",
        "    kind: ConfigMap",
        "    metadata: {name: settings}",
        "    data: {level: warn}",
        "images:",
        "- name: example/web",
        "  newTag: '2.0'",
        "configMapGenerator:",
        "- name: linked",
        "  files: [notes.txt]",
        "generatorOptions: {disableNameSuffixHash: true}",
      ].join("\n"),
    );
    repo.write("overlays/prod/namespace.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: prod}\n");
    repo.write("overlays/prod/notes.txt", "release notes\n");
    // A repository must not be able to make the collector read its host's files.
    repo.write("overlays/linked/kustomization.yaml", "resources: [../../base]\nconfigMapGenerator:\n- name: linked\n  files: [secret.txt]\n");
    symlinkSync(path.join(outside, "secret.txt"), path.join(repo.dir, "overlays/linked/secret.txt"));
    repo.write("overlays/staging/kustomization.yaml", "namespace: staging\nresources: [../../base]\n");
    repo.write("overlays/broken/kustomization.yaml", "resources: [../../base, missing.yaml]\n");
    repo.write("plain/cm.yaml", configMap("plain", { a: "1" }));
    sha = repo.commit("base and overlays");
    mirrors = tempDir("kustomize-mirrors");
    await sync();
  });

  beforeEach(() => clearRenderCache());

  afterAll(() => {
    repo.cleanup();
    rmSync(mirrors, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  const prod = { path: "overlays/prod", mode: "kustomize", defaultNamespace: "prod" } as const;

  it(`renders an overlay with patches: through the real binary (${bin.file})`, async () => {
    const res = await renderManifests(mirror, sha, prod);
    expect(res.objects.map(key).sort()).toEqual(["ConfigMap/prod/linked", "ConfigMap/prod/settings", "Deployment/prod/web", "Namespace/-/prod"]);
    const deploy = res.objects.find((o) => key(o) === "Deployment/prod/web")!.object as {
      spec: { replicas: number; template: { spec: { containers: { image: string }[] } } };
    };
    expect(deploy.spec.replicas).toBe(5);
    expect(deploy.spec.template.spec.containers[0]!.image).toBe("example/web:2.0");
    expect(res.objects.find((o) => key(o) === "ConfigMap/prod/settings")!.object.data).toEqual({ level: "warn" });
    expect(res.objects.every((o) => o.sourcePath === "overlays/prod/kustomization.yaml")).toBe(true);
    expect(res.treeHash).toBe(repo.git("rev-parse", `${sha}:overlays/prod`).trim());
    expect(res.problems).toEqual([]);
  });

  it("refuses a symbolic link out of the checkout, naming the file and the reference", async () => {
    const err = await renderManifests(mirror, sha, { ...prod, path: "overlays/linked" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RenderRefusedError);
    expect((err as RenderRefusedError).refusals).toEqual([
      { file: "overlays/linked/kustomization.yaml", reference: "secret.txt", reason: expect.stringContaining("leaves the repository through the symbolic link overlays/linked/secret.txt") },
    ]);
    expect(String(err)).not.toContain("HOST-ONLY-SECRET");
  });

  it("lists the build's inputs: every kustomization, resource and generator file it reads, sorted", async () => {
    const res = await renderManifests(mirror, sha, prod);
    expect(res.inputs).toEqual([
      "base/deploy.yaml",
      "base/kustomization.yaml",
      "base/settings.yaml",
      "overlays/prod/kustomization.yaml",
      "overlays/prod/namespace.yaml",
      "overlays/prod/notes.txt",
    ]);
    expect((await renderManifests(mirror, sha, prod)).inputs).toEqual(res.inputs);
  });

  it("keeps a namespace the overlay sets, and runs kubectl when configured explicitly", async () => {
    const res = await renderManifests(mirror, sha, { path: "overlays/staging", mode: "kustomize", defaultNamespace: "ignored", kustomizeBin: bin.file });
    expect(res.objects.map(key).sort()).toEqual(["ConfigMap/staging/settings", "Deployment/staging/web"]);
  });

  it("re-renders when a base outside the path changes, and caches otherwise", async () => {
    const first = await renderManifests(mirror, sha, prod);
    expect((await renderManifests(mirror, sha, prod)).cached).toBe(true);

    repo.write("base/deploy.yaml", BASE_DEPLOY.replace("metadata:\n  name: web\n", "metadata:\n  name: web\n  annotations: {team: payments}\n"));
    const next = repo.commit("base: annotate");
    await sync();
    const res = await renderManifests(mirror, next, prod);
    expect(res.treeHash).toBe(first.treeHash);
    expect(res.cached).toBe(false);
    const meta = res.objects.find((o) => key(o) === "Deployment/prod/web")!.object.metadata as { annotations?: Record<string, string> };
    expect(meta.annotations).toEqual({ team: "payments" });
  });

  it("turns a failing build into a render error with repository-relative paths", async () => {
    const err = await renderManifests(mirror, sha, { ...prod, path: "overlays/broken" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GitError);
    const e = err as GitError;
    expect(e.category).toBe("render");
    expect(e.message).toContain("missing.yaml");
    expect(e.message).not.toContain("driftwatch-kustomize-");
    expect(e.message).not.toMatch(/run\.go|command failed/);
  });

  it("says so when the path has no kustomization", async () => {
    await expect(renderManifests(mirror, sha, { ...prod, path: "plain" })).rejects.toMatchObject({
      category: "render",
      message: expect.stringContaining("no kustomization.yaml"),
    });
  });

  it("leaves no temporary checkout behind", async () => {
    const tmp = tempDir("kustomize-tmp");
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      await renderManifests(mirror, sha, { ...prod, defaultNamespace: "another" });
      await renderManifests(mirror, sha, { ...prod, path: "overlays/broken" }).catch(() => undefined);
      mkdirSync(tmp, { recursive: true });
      expect(execFileSync("ls", ["-A", tmp], { encoding: "utf8" })).toBe("");
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
