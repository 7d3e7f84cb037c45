// One test case on the Argo CD app-of-apps estate
// (test/fixtures/estates/argocd-app-of-apps): the fixture committed into a real
// Git repository, the cluster as Argo CD leaves it once the root Application
// has synced the children and each child its service (applied as
// argocd-controller with tracking ids, status.sync and history written), an
// empty database, and a driftwatch.yaml whose production discovers the
// Applications. Suites over the estate share it, so each states only what its
// own case adds; `syncApplication` and `reportApplication` play Argo CD after.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach } from "vitest";
import { parse, stringify } from "yaml";
import { parseConfig, type DriftwatchConfig } from "@/lib/config";
import { getPrisma } from "@/lib/db";
import { resetDatabase } from "@/lib/db/testing";
import { TestRepo } from "@/lib/git/test-support/repo-fixture";
import { endCase, type ClusterServer, type TestCluster } from "./clusters";
import { ESTATES, installControllerCrds, kubectlFor, type Kubectl } from "./estate-kube";
import { argoSync } from "./argo-sync";
import { runAsWorker } from "./collector-env";

export const APP_OF_APPS = path.join(ESTATES, "argocd-app-of-apps");
/** The URL the fixture's Applications name; the configuration declares the test repository with it as an alias. */
export const APP_OF_APPS_URL = "https://git.example.com/acme/argocd-app-of-apps.git";
/** The Applications of the estate: the root and the four it declares. */
export const APP_OF_APPS_APPLICATIONS = ["root", "shop-api", "shop-cart", "shop-web", "shop-worker"] as const;
export type AppOfAppsApplication = (typeof APP_OF_APPS_APPLICATIONS)[number];

export interface AppOfAppsCase {
  dir: string;
  cluster: TestCluster;
  repo: TestRepo;
  config: DriftwatchConfig;
}

/** Every file of the estate, committed as its repository's first commit ("app-of-apps"). */
export function commitAppOfApps(repo: TestRepo): string {
  for (const file of fs.readdirSync(APP_OF_APPS, { recursive: true, encoding: "utf8" })) {
    const full = path.join(APP_OF_APPS, file);
    if (fs.statSync(full).isFile()) repo.write(file, fs.readFileSync(full));
  }
  return repo.commit("app-of-apps");
}

type Obj = Record<string, unknown>;

/**
 * What Argo CD renders for one of the estate's Applications from the
 * repository's checkout (its head): the root's apps/ folder, a plain folder's
 * YAML files, or kustomize with the Application's `kustomize.images` set (as
 * `kustomize edit set image` does, in a copy of the folder).
 */
async function rendered(kubectl: Kubectl, c: Pick<AppOfAppsCase, "dir" | "repo">, name: AppOfAppsApplication): Promise<string[]> {
  const yamlIn = (folder: string) =>
    fs
      .readdirSync(folder, { recursive: true, encoding: "utf8" })
      .filter((f) => /\.ya?ml$/.test(f))
      .sort()
      .map((f) => fs.readFileSync(path.join(folder, f), "utf8"));
  if (name === "root") return yamlIn(path.join(c.repo.dir, "apps"));
  const declared = parse(fs.readFileSync(path.join(c.repo.dir, "apps", `${name}.yaml`), "utf8")) as { spec: { source: { path: string; kustomize?: { images?: string[] } } } };
  const source = declared.spec.source;
  if (!source.kustomize) return yamlIn(path.join(c.repo.dir, source.path));
  // The overlay's bases are its siblings: copy the service's whole folder.
  const service = path.dirname(source.path);
  const copy = path.join(c.dir, `render-${name}`);
  fs.rmSync(copy, { recursive: true, force: true });
  fs.cpSync(path.join(c.repo.dir, service), copy, { recursive: true });
  const kustomization = path.join(copy, path.basename(source.path), "kustomization.yaml");
  const k = parse(fs.readFileSync(kustomization, "utf8")) as Obj;
  k.images = (source.kustomize.images ?? []).map((image) => {
    const at = image.lastIndexOf(":");
    return { name: image.slice(0, at), newTag: image.slice(at + 1) };
  });
  fs.writeFileSync(kustomization, stringify(k));
  return [await kubectl(["kustomize", path.dirname(kustomization)])];
}

/** The Application's status as Argo CD last wrote it (no status subresource: any field of the object). */
async function statusOf(kubectl: Kubectl, name: string): Promise<Obj> {
  return ((JSON.parse(await kubectl(["-n", "argocd", "get", "applications.argoproj.io", name, "-o", "json"])) as Obj).status ?? {}) as Obj;
}

/** Merges `status` into the Application's status, as the application controller writes it. */
export async function reportApplication(kubectl: Kubectl, name: string, status: Obj): Promise<void> {
  await kubectl(["-n", "argocd", "patch", "applications.argoproj.io", name, "--type=merge", "-p", JSON.stringify({ status })]);
}

/**
 * Argo CD syncing the Application at the repository's head: what it renders
 * applied as argocd-controller with tracking ids, then Synced at the head, the
 * sync's operationState and a history entry (what "last synced" reads once
 * the Application goes OutOfSync again).
 */
export async function syncApplication(kubectl: Kubectl, c: Pick<AppOfAppsCase, "dir" | "repo">, name: AppOfAppsApplication, at = new Date()): Promise<void> {
  const sha = c.repo.head();
  await argoSync(kubectl, name, name === "root" ? "argocd" : "shop", await rendered(kubectl, c, name), { revision: sha });
  const history = ((await statusOf(kubectl, name)).history ?? []) as Obj[];
  const source = { repoURL: APP_OF_APPS_URL, targetRevision: "main" };
  await reportApplication(kubectl, name, {
    operationState: { phase: "Succeeded", message: "successfully synced (all tasks run)", startedAt: at.toISOString(), finishedAt: at.toISOString(), operation: { sync: { revision: sha } }, syncResult: { revision: sha, source } },
    history: [...history, { id: history.length, revision: sha, deployedAt: at.toISOString(), source }],
  });
}

/**
 * The estate's cluster once Argo CD has run: the root applied by hand
 * (`kubectl apply -n argocd -f root.yaml`) and every Application synced at the
 * repository's first commit.
 */
export async function startAppOfAppsCase(server: ClusterServer, tmpPrefix: string): Promise<AppOfAppsCase> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), tmpPrefix));
  const cluster = await server.forCase(dir);
  const repo = TestRepo.create("argocd-app-of-apps");
  commitAppOfApps(repo);
  const config = parseConfig(
    stringify({
      repositories: [{ name: "app-of-apps", url: repo.dir, aliases: [APP_OF_APPS_URL] }],
      environments: [{ name: "production", cluster: { kubeconfig: cluster.kubeconfigPath, context: "t-readonly" }, namespaces: ["argocd", "shop"], extraKinds: [], discover: { argocd: { namespace: "argocd" } } }],
    }),
  );
  await resetDatabase(getPrisma());
  const kubectl = kubectlFor(() => cluster);
  await installControllerCrds(kubectl, cluster);
  for (const ns of ["argocd", "shop"]) await kubectl(["create", "namespace", ns]);
  await kubectl(["apply", "--server-side", "--field-manager=kubectl", "-f", path.join(APP_OF_APPS, "root.yaml")]);
  for (const name of APP_OF_APPS_APPLICATIONS) await syncApplication(kubectl, { dir, repo }, name);
  return { dir, cluster, repo, config };
}

export async function endAppOfAppsCase(c: Partial<AppOfAppsCase>): Promise<void> {
  // The root carries Argo CD's resources finalizer; with no Argo CD running to honour it, the Application
  // (and so its CRD) would never finish deleting.
  if (c.cluster) {
    const kubectl = kubectlFor(() => c.cluster);
    await kubectl(["-n", "argocd", "patch", "applications.argoproj.io", "root", "--type=merge", "-p", '{"metadata":{"finalizers":null}}']).catch(() => "");
  }
  await endCase(c);
}

/** A suite's app-of-apps case (eachAppOfAppsCase) and what its tests do with it. */
export interface AppOfAppsSuite extends AppOfAppsCase {
  kubectl: Kubectl;
  /** One run of production, then the worker's after-run hooks (detected pauses, then alerts), as a worker does it. */
  run(): Promise<void>;
  /** Argo CD syncing each of the Applications at the repository's head, in order (syncApplication). */
  sync(...names: AppOfAppsApplication[]): Promise<void>;
  /** Argo CD has compared the Application with the branch's new head and found it differs, and has not synced it. */
  outOfSync(name: AppOfAppsApplication): Promise<void>;
}

/**
 * A fresh app-of-apps case around every test of the suite. Its fields are
 * read inside a test (or a beforeEach after this one); outside one they
 * throw, so a kubectl left running once a test's case has ended fails rather
 * than reaching the next case's cluster.
 */
export function eachAppOfAppsCase(server: () => ClusterServer, tmpPrefix: string): AppOfAppsSuite {
  let current: AppOfAppsCase | undefined;
  beforeEach(async () => {
    current = await startAppOfAppsCase(server(), tmpPrefix);
  }, 120_000);
  afterEach(async () => {
    const ended = current;
    current = undefined;
    if (ended) await endAppOfAppsCase(ended);
  }, 60_000);
  const running = (): AppOfAppsCase => {
    if (!current) throw new Error("no app-of-apps case is running: its fields are read inside a test");
    return current;
  };
  const kubectl = kubectlFor(() => current?.cluster);
  const suite: AppOfAppsSuite = {
    get dir() {
      return running().dir;
    },
    get cluster() {
      return running().cluster;
    },
    get repo() {
      return running().repo;
    },
    get config() {
      return running().config;
    },
    kubectl,
    run: () => runAsWorker(getPrisma(), suite.config, path.join(suite.dir, "mirrors"), "production"),
    sync: async (...names) => {
      for (const name of names) await syncApplication(kubectl, suite, name);
    },
    outOfSync: (name) => reportApplication(kubectl, name, { sync: { status: "OutOfSync", revision: suite.repo.head() } }),
  };
  return suite;
}
