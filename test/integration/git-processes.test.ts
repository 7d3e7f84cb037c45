// Issue 19: an environment of many applications from one repository costs a
// handful of git processes per run, however many applications there are —
// also when the branch moved since the last run (a busy repository). What
// the applications see must not change: each one's approved revision is the
// newest commit touching its folder, and live matching it is inferred as
// applied at the tip.
import { afterEach, describe, expect, it } from "vitest";
import { applicationsByName, createCollectorFixture, type CollectorFixture } from "../support/collector-env";
import { requiredKustomize } from "../support/required-tools";
import { FLUX_GITREPOSITORY_CRD, FLUX_KUSTOMIZATION_CRD } from "@driftwatch/kubesim";
import { patchStatus } from "@/demo/kube-writer";
import { gitProcessCounts, resetGitProcessCounts } from "@/lib/git/exec";

// The kustomize case runs the real kustomize: without one this file fails, saying what to install.
requiredKustomize();

let f: CollectorFixture | undefined;
afterEach(async () => {
  await f?.cleanup();
  f = undefined;
});

const appName = (i: number) => `app-${String(i).padStart(2, "0")}`;

function configMapOf(i: number, name = `settings-${i}`): Record<string, unknown> {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "shop" }, data: { app: appName(i) } };
}

/**
 * Git processes of each steady run of an environment of `count` applications, a commit landing before each.
 * kustomize: each application an overlay of its own settings and a shared base (bases/common), rendered with kustomize.
 */
async function steadyGitProcesses(count: number, render: "plain" | "kustomize" = "plain"): Promise<number[]> {
  const files: Record<string, unknown[]> = {};
  const live: Record<string, unknown>[] = [];
  for (let i = 0; i < count; i++) {
    files[`envs/${appName(i)}/settings.yaml`] = [configMapOf(i)];
    live.push(configMapOf(i));
    if (render === "kustomize") {
      files[`envs/${appName(i)}/kustomization.yaml`] = [{ apiVersion: "kustomize.config.k8s.io/v1beta1", kind: "Kustomization", resources: ["settings.yaml", "../../bases/common"] }];
      live.push(configMapOf(i, "common"));
    }
  }
  if (render === "kustomize") {
    files["bases/common/common.yaml"] = [{ ...configMapOf(0, "common"), data: { shared: "yes" } }];
    files["bases/common/kustomization.yaml"] = [{ apiVersion: "kustomize.config.k8s.io/v1beta1", kind: "Kustomization", resources: ["common.yaml"] }];
  }
  // The shared ConfigMap is one object in the cluster, however many overlays render it.
  const seeded = render === "kustomize" ? [...live.filter((o) => (o.metadata as { name: string }).name !== "common"), { ...configMapOf(0, "common"), data: { shared: "yes" } }] : live;
  const applications = Array.from({ length: count }, (_, i) => ({ name: appName(i), source: { repository: "shop", branch: "main", path: `envs/${appName(i)}`, render } }));
  const fx = await createCollectorFixture(files, { envYaml: { source: undefined, applications } });
  f = fx;
  const initial = fx.repo.head();
  await fx.seed(seeded, "kustomize-controller");
  expect((await fx.run()).status).toBe("succeeded");

  const perRun: number[] = [];
  const tips: Record<number, string> = {};
  for (let round = 1; round <= 3; round++) {
    // One application's folder and a file of no application's: the tip moves, one approved revision with it.
    fx.repo.write(`envs/${appName(round % count)}/NOTES.md`, `round ${round}\n`);
    fx.repo.write("README.md", `round ${round}\n`);
    const tip = fx.repo.commit(`round ${round}`);
    tips[round] = tip;
    resetGitProcessCounts();
    expect((await fx.run()).status).toBe("succeeded");
    perRun.push(gitProcessCounts().total);

    const apps = await applicationsByName(fx.db);
    expect(apps.size).toBe(count);
    for (let i = 0; i < count; i++) {
      const app = apps.get(appName(i))!;
      const touchedAt = [1, 2, 3].filter((r) => r <= round && r % count === i).at(-1);
      // Newest commit touching its folder; everything live matches, so the tip is what is applied (inferred).
      expect({ app: app.name, approved: app.approvedSha, applied: app.appliedSha }).toEqual({ app: app.name, approved: touchedAt ? tips[touchedAt] : initial, applied: tip });
    }
  }
  return perRun;
}

/**
 * Git processes of an app-of-apps of `count` children, the Flux way: a root built with kustomize from apps/, which
 * lists one Kustomization per child (apps/<child>.yaml), each child a folder of its own, every Kustomization in
 * the cluster reporting the branch head applied (Flux reports each push's head for all). A steady run with
 * nothing new, then runs each after a push (a child's folder and a file of no application's), as in
 * steadyGitProcesses.
 */
async function appOfAppsGitProcesses(count: number): Promise<{ unchanged: Record<string, number>; pushed: number[] }> {
  const child = (i: number) => ({
    apiVersion: "kustomize.toolkit.fluxcd.io/v1",
    kind: "Kustomization",
    metadata: { name: appName(i), namespace: "shop" },
    spec: { interval: "10m", path: `./envs/${appName(i)}`, prune: true, sourceRef: { kind: "GitRepository", name: "shop" } },
  });
  const files: Record<string, unknown[]> = {};
  for (let i = 0; i < count; i++) {
    files[`envs/${appName(i)}/settings.yaml`] = [configMapOf(i)];
    files[`apps/${appName(i)}.yaml`] = [child(i)];
  }
  files["apps/kustomization.yaml"] = [{ apiVersion: "kustomize.config.k8s.io/v1beta1", kind: "Kustomization", resources: Array.from({ length: count }, (_, i) => `${appName(i)}.yaml`) }];
  const applications = [
    { name: "root", source: { repository: "shop", branch: "main", path: "apps", render: "kustomize" } },
    ...Array.from({ length: count }, (_, i) => ({ name: appName(i), source: { repository: "shop", branch: "main", path: `envs/${appName(i)}`, render: "kustomize" }, controller: { type: "flux", namespace: "shop", name: appName(i) } })),
  ];
  const fx = await createCollectorFixture(files, { envYaml: { source: undefined, applications } });
  f = fx;
  await fx.installCrds([FLUX_GITREPOSITORY_CRD, FLUX_KUSTOMIZATION_CRD]);
  await fx.seed([...Array.from({ length: count }, (_, i) => configMapOf(i)), ...Array.from({ length: count }, (_, i) => child(i))], "kustomize-controller");
  const reportApplied = async (sha: string) => {
    for (let i = 0; i < count; i++) await patchStatus(fx.admin, "kustomize.toolkit.fluxcd.io/v1", "Kustomization", "shop", appName(i), { lastAppliedRevision: `main@sha1:${sha}`, conditions: [] }, "kustomize-controller");
  };
  const initial = fx.repo.head();
  await reportApplied(initial);
  expect((await fx.run()).status).toBe("succeeded");
  // The first run computed children before their parent: the second finds each declaration.
  expect((await fx.run()).status).toBe("succeeded");

  resetGitProcessCounts();
  expect((await fx.run()).status).toBe("succeeded");
  const unchanged = gitProcessCounts().bySubcommand;

  const pushed: number[] = [];
  for (let round = 1; round <= 2; round++) {
    fx.repo.write(`envs/${appName(round % count)}/NOTES.md`, `round ${round}\n`);
    fx.repo.write("README.md", `round ${round}\n`);
    const tip = fx.repo.commit(`round ${round}`);
    await reportApplied(tip);
    resetGitProcessCounts();
    expect((await fx.run()).status).toBe("succeeded");
    pushed.push(gitProcessCounts().total);
  }
  // Each child's declaration was found and read: its approved revision is the commit that created it and its folder.
  const apps = await applicationsByName(fx.db);
  expect(apps.get(appName(0))).toMatchObject({ approvedSha: initial, appliedBehind: false });
  return { unchanged, pushed };
}

describe("git processes per collection run", () => {
  it("do not grow with the number of applications of one repository", async () => {
    const few = await steadyGitProcesses(5);
    await f?.cleanup();
    f = undefined;
    const many = await steadyGitProcesses(40);
    // A fetch, the new revisions listed, the history index extended, and the one touched application rendered.
    for (const n of [...few, ...many]) expect(n).toBeLessThanOrEqual(12);
    expect(Math.max(...many) - Math.min(...few)).toBeLessThanOrEqual(2);
  }, 180_000);

  it("do not grow with the number of kustomize overlays either: the files a render reads are not read again when no commit touched them", async () => {
    const few = await steadyGitProcesses(3, "kustomize");
    await f?.cleanup();
    f = undefined;
    const many = await steadyGitProcesses(12, "kustomize");
    expect(Math.max(...many) - Math.min(...few)).toBeLessThanOrEqual(3);
  }, 180_000);

  it("do not grow with the number of children of an app-of-apps: their declarations in the parent's folder are read once per push for all", async () => {
    const few = await appOfAppsGitProcesses(3);
    await f?.cleanup();
    f = undefined;
    const many = await appOfAppsGitProcesses(12);
    // Nothing new: the fetch that finds nothing, and nothing read again.
    expect([few.unchanged, many.unchanged]).toEqual([{ fetch: 1 }, { fetch: 1 }]);
    // After a push: the fetch, the history extended, the parent's build inputs and the histories of its
    // declaring files read once each, and the parent rendered at the new head (the revision the children
    // applied) — the same for 12 children as for 3.
    for (const n of [...few.pushed, ...many.pushed]) expect(n).toBeLessThanOrEqual(12);
    expect(Math.max(...many.pushed) - Math.min(...few.pushed)).toBeLessThanOrEqual(1);
  }, 240_000);
});
