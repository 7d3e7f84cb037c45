// Rendering a real chart (test/fixtures/real-charts/podinfo with its
// production values) as an Argo CD Helm source through Driftwatch —
// list the commit, check every input, check the tree out, run the sandboxed
// helm, parse and finalise the objects, with the render cache cleared each
// time — against `helm template` of the same chart with the same arguments
// alone, over a checkout made beforehand. Rounds alternate, medians compared.
//
//   npx tsx bench/helm-render.ts [--rounds N]
//
// Prints one JSON line: medians, ratio (Driftwatch / helm alone; target ≤ 1.5).
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { clearRenderCache, renderManifests } from "../lib/git/render";
import { syncMirror } from "../lib/git/mirror";
import { networkIsolation } from "../lib/git/sandbox";
import { helmTemplateArgs } from "../lib/helm/argocd-helm";
import { TestRepo } from "../lib/git/test-support/repo-fixture";
import { binaryPath, isBuilt } from "../tools/realkube/binaries";
import { median, round } from "./support/stats";

const run = promisify(execFile);

const CLOCK_TICKS_PER_MS = 100 / 1000;

/** CPU milliseconds of finished children (Linux /proc: cutime + cstime), plus this process's own when asked. */
function cpuMs(own: boolean): number {
  const stat = fs.readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const children = (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS_PER_MS;
  if (!own) return children;
  const u = process.cpuUsage();
  return children + (u.user + u.system) / 1000;
}

export interface HelmRenderBenchResult {
  chart: string;
  objects: number;
  rounds: number;
  driftwatchMedianMs: number;
  helmAloneMedianMs: number;
  ratio: number;
  /** CPU time of this process and its children (git, helm) over that of helm alone: steadier than wall time on a loaded machine. */
  cpuRatio: number;
  loadAverage1m: number;
  networkIsolation: string;
  targets: { maxRatio: number; met: boolean };
}

export async function main(): Promise<HelmRenderBenchResult> {
  const roundsIdx = process.argv.indexOf("--rounds");
  const rounds = roundsIdx >= 0 ? Number(process.argv[roundsIdx + 1]) : 15;
  const helmBin = process.env.HELM_BIN ?? (isBuilt("helm") ? binaryPath("helm") : null);
  if (!helmBin) throw new Error("helm-render bench needs helm: npm run realkube:build, or HELM_BIN");
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-bench-helm-"));
  const repo = TestRepo.create("bench-helm");
  try {
    fs.cpSync(path.resolve(import.meta.dirname, "../test/fixtures/real-charts/podinfo"), path.join(repo.dir, "charts/podinfo"), { recursive: true });
    const sha = repo.commit("podinfo chart");
    const mirror = (await syncMirror({ name: "bench", url: repo.dir, auth: { type: "none" } }, path.join(work, "mirrors"))).mirrorPath;
    const cluster = { kubeVersion: "v1.34.4", apiVersions: ["apps/v1", "apps/v1/Deployment", "autoscaling/v2", "autoscaling/v2/HorizontalPodAutoscaler", "policy/v1", "policy/v1/PodDisruptionBudget", "v1", "v1/ConfigMap", "v1/Service"] };
    const helm = { valueFiles: ["values-prod.yaml"], parameters: [{ name: "ui.message", value: "bench" }] };
    const driftwatch = async () => {
      clearRenderCache();
      const r = await renderManifests(mirror, sha, { path: "charts/podinfo", mode: "helm", defaultNamespace: "podinfo", controller: { type: "argocd", helm, env: { appName: "podinfo", appNamespace: "podinfo" } }, helm: { bin: helmBin, cluster } });
      return r.objects.length;
    };
    const chartDir = path.join(repo.dir, "charts/podinfo");
    const args = helmTemplateArgs({ chart: ".", appName: "podinfo", namespace: "podinfo", options: helm, valueFiles: [path.join(chartDir, "values-prod.yaml")], cluster });
    const helmEnv = { NODE_ENV: process.env.NODE_ENV, PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: work, HELM_CACHE_HOME: path.join(work, "c"), HELM_CONFIG_HOME: path.join(work, "f"), HELM_DATA_HOME: path.join(work, "d") };
    const helmAlone = async () => (await run(helmBin, args, { cwd: chartDir, env: helmEnv, maxBuffer: 64 * 1024 * 1024 })).stdout.length;

    const objects = await driftwatch();
    await helmAlone();
    const dw: number[] = [];
    const alone: number[] = [];
    const cpu = { driftwatch: 0, alone: 0 };
    const measure = async (fn: () => Promise<unknown>, times: number[], ownCpu: boolean): Promise<number> => {
      const c0 = cpuMs(ownCpu);
      const t = performance.now();
      await fn();
      times.push(performance.now() - t);
      return cpuMs(ownCpu) - c0;
    };
    // Alternating which goes first, so a load change on the shared machine hits both alike.
    for (let i = 0; i < rounds; i++) {
      if (i % 2 === 0) {
        cpu.driftwatch += await measure(driftwatch, dw, true);
        cpu.alone += await measure(helmAlone, alone, false);
      } else {
        cpu.alone += await measure(helmAlone, alone, false);
        cpu.driftwatch += await measure(driftwatch, dw, true);
      }
    }
    const ratio = round(median(dw) / median(alone), 2);
    const result: HelmRenderBenchResult = {
      chart: "stefanprodan/podinfo charts/podinfo, values-prod.yaml",
      objects,
      rounds,
      driftwatchMedianMs: round(median(dw), 1),
      helmAloneMedianMs: round(median(alone), 1),
      ratio,
      cpuRatio: round(cpu.driftwatch / cpu.alone, 2),
      loadAverage1m: round(os.loadavg()[0] ?? 0, 1),
      networkIsolation: networkIsolation().prefix.join(" ") || `none (${networkIsolation().reason})`,
      targets: { maxRatio: 1.5, met: ratio <= 1.5 },
    };
    console.log(JSON.stringify(result));
    return result;
  } finally {
    repo.cleanup();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then(
    (r) => process.exit(r.targets.met ? 0 : 1),
    (e: unknown) => {
      console.error(e);
      process.exit(2);
    },
  );
}
