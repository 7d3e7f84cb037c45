// `npm run bench`: every benchmark, one after another, each in a process of
// its own (so one's memory does not inflate the next one's figures), then
// bench/results/latest.json and bench/results/latest.md (git-ignored).
//
//   npm run bench [-- --only collect,latency] [--full]
//
// --full adds the 50,000- and 100,000-object collections (several minutes more on 2 cores)
// and runs the watch-latency bench on 100,000 objects (several minutes more).
// The fleet benchmark (bench/fleet.ts, about 11 minutes on its own) runs only
// when named: `npm run bench -- --only fleet` (`--scale 0.1`: a tenth of its
// applications, for development).
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { machine, round, stringArg } from "./support/stats";
import type { CollectBenchResult } from "./collect";
import type { LatencyBenchResult } from "./latency";
import type { ApiBenchResult } from "./api";
import type { StorageBenchResult } from "./storage";
import type { ScaleOutBenchResult } from "./scale-out";
import type { DriftBenchResult } from "./drift";
import type { KubesimListBenchResult } from "./kubesim-list";
import type { AuthFloodBenchResult } from "./auth-flood";
import type { DiscoveryBenchResult } from "./discovery";
import type { HelmReleaseStorageBenchResult } from "./helm-release-storage";
import type { HelmRenderBenchResult } from "./helm-render";
import type { FleetBenchResult } from "./fleet";

const ROOT = path.resolve(import.meta.dirname, "..");
const BUDGET_MS = 10 * 60_000;

interface Bench {
  name: string;
  file: string;
  args: string[];
  /** Runs only when named in --only: it takes the whole budget alone. */
  onlyWhenNamed?: boolean;
}

interface Outcome {
  name: string;
  ms: number;
  result: unknown;
  error: string | null;
}

function benches(full: boolean, fleetScale: string | undefined): Bench[] {
  return [
    { name: "drift", file: "bench/drift.ts", args: [] },
    { name: "kubesim-list", file: "bench/kubesim-list.ts", args: [] },
    { name: "discovery", file: "bench/discovery.ts", args: [] },
    { name: "helm-release-storage", file: "bench/helm-release-storage.ts", args: [] },
    { name: "collect", file: "bench/collect.ts", args: full ? ["--full"] : [] },
    { name: "latency", file: "bench/latency.ts", args: full ? ["--full"] : [] },
    { name: "api", file: "bench/api.ts", args: [] },
    { name: "storage", file: "bench/storage.ts", args: [] },
    { name: "scale-out", file: "bench/scale-out.ts", args: [] },
    { name: "auth-flood", file: "bench/auth-flood.ts", args: [] },
    { name: "helm-render", file: "bench/helm-render.ts", args: [] },
    { name: "fleet", file: "bench/fleet.ts", args: fleetScale ? ["--scale", fleetScale] : [], onlyWhenNamed: true },
  ];
}

/** Runs one benchmark script; its last stdout line that parses as a JSON object is its result. */
function runOne(b: Bench): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, b.file), ...b.args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? "warn" },
    });
    let last: unknown = null;
    let buffer = "";
    child.stdout?.on("data", (d: Buffer) => {
      buffer += d.toString();
      let nl = buffer.indexOf("\n");
      while (nl >= 0) {
        const line = buffer.slice(0, nl).trim();
        buffer = buffer.slice(nl + 1);
        nl = buffer.indexOf("\n");
        if (line.startsWith("{")) {
          try {
            last = JSON.parse(line) as unknown;
            continue;
          } catch {
            // a log line that happens to start with a brace
          }
        }
        if (line) console.log(`  ${line}`);
      }
    });
    child.on("exit", (code) => {
      const ms = performance.now() - started;
      resolve({ name: b.name, ms, result: last, error: last ? null : `exited with ${code} and printed no result` });
    });
  });
}

const yes = (v: boolean | null | undefined): string => (v === null || v === undefined ? "n/a" : v ? "yes" : "**no**");
const n = (v: number): string => v.toLocaleString("en-US");

type Row = [string, string, string, string, string, string, string];

function rows(outcomes: Outcome[]): Row[] {
  const out: Row[] = [];
  const get = <T>(name: string): T | null => (outcomes.find((o) => o.name === name)?.result as T | null | undefined) ?? null;

  const drift = get<DriftBenchResult>("drift");
  if (drift) {
    out.push(["Drift engine", `${n(drift.pairs)} realistic pairs`, `${n(drift.objectsPerSecond)} objects/s`, `microdiff ${n(drift.baselineObjectsPerSecond)} objects/s`, `${drift.ratio}×`, "≥ 20,000/s and ≤ 3×", yes(drift.targets.met)]);
  }
  const list = get<KubesimListBenchResult>("kubesim-list");
  if (list) out.push(["kubesim list", `${n(list.objects)} ConfigMaps, pages of ${list.pageSize}`, `${n(list.elapsedMs)} ms`, "—", "—", "< 2 s", yes(list.target.met)]);

  const discovery = get<DiscoveryBenchResult>("discovery");
  if (discovery) {
    for (const r of discovery.servers) {
      out.push([
        `Discovery (${r.server})`,
        `${n(r.controllerObjects)} controller objects (Kustomizations, HelmReleases, hub Applications) + ${n(r.sourceObjects)} sources, ${r.samples} samples`,
        `median ${r.discovery.medianMs} ms, p95 ${r.discovery.p95Ms} ms`,
        `bare list of the same kinds: median ${r.baseline.medianMs} ms`,
        `${r.ratio}×`,
        "≤ 200 ms",
        yes(r.discovery.medianMs <= discovery.target.maxMedianMs),
      ]);
    }
  }
  const helm = get<HelmReleaseStorageBenchResult>("helm-release-storage");
  if (helm) {
    const what = `${n(helm.releases)} releases × ${helm.revisionsPerRelease} revisions (${n(helm.secrets)} Secrets, ${helm.namespaces} namespaces), current decoded, manifest parsed`;
    out.push(["Helm release storage", what, `${n(helm.readMs)} ms (one release at a time: ${n(helm.perReleaseMs)} ms)`, `bare list of the same Secrets ${n(helm.baselineMs)} ms`, `${helm.ratio}×`, "≤ 2 s", yes(helm.target.met)]);
  }
  const collect = get<CollectBenchResult>("collect");
  if (collect) {
    for (const s of collect.sizes) {
      out.push([`Collection, ${n(s.objects)} objects`, "cold first run", `${n(s.coldMs)} ms`, `bare list + JSON.parse ${n(s.baselineMs)} ms`, `${s.coldRatio}×`, "—", "—"]);
      out.push([`Collection, ${n(s.objects)} objects`, `steady state (Git unchanged, ${n(s.churnPerRun)} live objects changed)`, `${n(s.steadyMs)} ms`, `bare list, paired: ${n(s.baselineMs)} ms`, `${s.steadyRatio}×`, s.objects >= 10_000 ? "≤ 2×" : "(≤ 2× is set for 10,000)", s.objects >= 10_000 ? yes(s.steadyRatio <= 2) : "—"]);
      const peak = Math.max(s.peakRssMiB.cold, s.peakRssMiB.steady);
      const heap = s.collectorHeapMiB ? `, heap limit ${n(s.collectorHeapMiB)} MiB` : "";
      // Issue 21: at 50,000 objects no more than a process that only lists them; at 100,000 at most 1 GiB.
      const target = s.objects === 50_000 ? "≤ bare list" : s.objects === 100_000 ? "≤ 1 GiB" : "—";
      const met = s.objects === 50_000 ? yes(peak <= s.peakRssMiB.baseline) : s.objects === 100_000 ? yes(peak <= 1024) : "—";
      out.push([`Collection, ${n(s.objects)} objects`, `peak RSS (VmHWM) of the collector process, cold / steady${heap}`, `${n(s.peakRssMiB.cold)} / ${n(s.peakRssMiB.steady)} MiB`, `bare list process ${n(s.peakRssMiB.baseline)} MiB`, `${round(peak / s.peakRssMiB.baseline, 2)}×`, target, met]);
    }
    if (!collect.fullScale) out.push(["Collection, 50,000 and 100,000 objects", "not run (npm run bench -- --full)", "—", "—", "—", "≤ bare list; ≤ 1 GiB", "n/a"]);
  }
  const latency = get<LatencyBenchResult>("latency");
  if (latency) {
    const p95Target = `p95 ≤ ${n(latency.targets.p95Ms / 1000)} s`;
    out.push(["Detection latency (watch)", `kubectl scale → drift in GET /api/environments/{env}/drift, ${latency.drift.samples} edits, ${n(latency.objects)} objects`, `p50 ${n(latency.drift.p50Ms)} ms, p95 ${n(latency.drift.p95Ms)} ms`, "—", "—", p95Target, yes(latency.targets.driftMet)]);
    const burst = latency.burst;
    out.push(["Watch run for a burst", `${burst.changes} kubectl scales at once, ${n(latency.objects)} objects: the longest of the ${burst.runs} watch runs that carried them`, `${n(burst.runMaxMs)} ms`, `bare list of the same objects ${n(latency.bareListMs)} ms`, `${burst.runToBareList}×`, `≤ ${latency.targets.burstRunMaxRatio}× (set for 100,000)`, latency.objects >= 100_000 ? yes(latency.targets.burstRunMet) : "—"]);
    out.push(["Detection latency (burst)", `each of the ${burst.changes} edits → visible in GET /api/environments/{env}/drift`, `p50 ${n(burst.visible.p50Ms)} ms, p95 ${n(burst.visible.p95Ms)} ms`, "—", "—", p95Target, yes(latency.targets.burstVisibleMet)]);
    out.push(["Webhook latency", `signed push → approved revision in GET /api/environments/{env}, ${latency.webhook.samples} pushes`, `p50 ${n(latency.webhook.p50Ms)} ms, p95 ${n(latency.webhook.p95Ms)} ms`, "—", "—", "p95 ≤ 2 s", yes(latency.targets.webhookMet)]);
  }
  const api = get<ApiBenchResult>("api");
  if (api) {
    const data = `${n(api.liveObjects)} objects, ${n(api.driftItems)} drift items, ${api.environments} environments`;
    out.push(["API under load", `GET /api/environments/{env}/drift, ${api.connections} clients (${data}), ${api.webProcesses} web processes`, `p50 ${api.api.p50Ms} ms, p95 ${api.api.p95Ms} ms, ${api.api.requestsPerSecond}/s`, `1 client: p50 ${api.single.api.p50Ms} ms`, "—", "p95 ≤ 150 ms", yes(api.targets.apiMet)]);
    out.push(["API under load", `environments page /, ${api.connections} clients`, `p50 ${api.page.p50Ms} ms, p95 ${api.page.p95Ms} ms, ${api.page.requestsPerSecond}/s`, `1 client: p50 ${api.single.page.p50Ms} ms; the bare sign-in page, ${api.connections} clients: p95 ${api.barePage.p95Ms} ms, ${api.barePage.requestsPerSecond}/s`, "—", "p95 ≤ 300 ms", yes(api.targets.pageMet)]);
  }
  const storage = get<StorageBenchResult>("storage");
  if (storage) {
    out.push([
      "Storage",
      `${storage.runs} runs, ${n(storage.objects)} objects, 1% churn`,
      `+${n(round(storage.growthBytes / 1024))} KiB (unchanged run: +${n(round(storage.unchangedRunBytes / 1024, 1))} KiB)`,
      `changed objects ${n(round(storage.changedBytes / 1024))} KiB`,
      `${storage.ratio}×`,
      "≤ 2×",
      yes(storage.targets.met),
    ]);
  }
  const scale = get<ScaleOutBenchResult>("scale-out");
  if (scale) {
    for (const p of scale.phases) {
      out.push([
        "Scale-out",
        `${scale.environments} environments × ${n(scale.objectsPerEnvironment)} objects, ${p.workers} collector process${p.workers > 1 ? "es" : ""}`,
        `${p.runsPerMinute} runs/min (median run ${n(p.medianRunMs)} ms)`,
        p.workers === 1 ? "—" : "1 process, same run",
        `${p.speedup}×`,
        "—",
        "—",
      ]);
    }
    out.push(["Scale-out", `never two runs of one environment at once (${n(scale.runsChecked)} runs checked)`, `${scale.overlaps} overlaps`, "—", "—", "0", yes(scale.targets.noOverlap)]);
  }
  const flood = get<AuthFloodBenchResult>("auth-flood");
  if (flood) {
    out.push([
      "Audited mutation under an unauthenticated flood",
      `PATCH /api/users/{name}, one at a time, while another process sends ${n(flood.flood.signIns)} bad sign-ins + ${n(flood.flood.callbackErrors)} OIDC callback errors (${n(flood.flood.requestsPerSecond)}/s; ${n(flood.auditRowsAdded)} audit rows)`,
      `p50 ${flood.flood.p50Ms} ms, p95 ${flood.flood.p95Ms} ms`,
      `idle: p50 ${flood.idle.p50Ms} ms, p95 ${flood.idle.p95Ms} ms`,
      `${flood.ratio}×`,
      "p95 ≤ 2× idle",
      yes(flood.targets.met),
    ]);
  }
  const helmRender = get<HelmRenderBenchResult>("helm-render");
  if (helmRender) {
    const r = helmRender;
    out.push(["Helm source render", `${r.chart}, ${r.objects} objects, ${r.rounds} rounds, cache cleared (network isolation: ${r.networkIsolation})`, `median ${r.driftwatchMedianMs} ms`, `helm template alone: median ${r.helmAloneMedianMs} ms`, `${r.ratio}× (CPU ${r.cpuRatio}×, load ${r.loadAverage1m})`, "≤ 1.5×", yes(r.targets.met)]);
  }
  const fleet = get<FleetBenchResult>("fleet");
  if (fleet) {
    const what = `${fleet.environments} environments × ${n(fleet.applicationsPerEnvironment)} applications × ${fleet.objectsPerApplication} objects (${n(fleet.objects)})`;
    for (const p of fleet.phases) {
      const procs = `${p.workers} collector process${p.workers > 1 ? "es" : ""}`;
      out.push(["Fleet", `${what}, ${procs}: runs per minute (median run)`, `${p.runsPerMinute} runs/min (${n(p.medianRunMs)} ms)`, `bare list of one environment ${n(fleet.bareList.kubesimMedianMs)} ms; 1 process`, `run ${round(p.medianRunMs / fleet.bareList.kubesimMedianMs, 2)}× the list; ${p.speedup}× 1 process`, "—", "—"]);
      out.push(["Fleet", `${procs}: freshness, kubectl edit → drift API (${p.freshness.samples} edits, ${p.freshness.timeouts} timed out)`, `p50 ${n(p.freshness.p50Ms)} ms, p95 ${n(p.freshness.p95Ms)} ms`, `expected cycle ${n(p.expectedCycleMs)} ms`, `${round(p.freshness.p95Ms / Math.max(1, p.expectedCycleMs), 2)}×`, "—", "—"]);
      out.push(["Fleet", `${procs}: drift API (the ${fleet.environments} environments in turn), ${fleet.connections} clients while collecting`, `${p.api.p95Ms} ms (${n(p.api.requestsPerSecond)}/s)`, `collectors idle: ${fleet.idle.api.p95Ms} ms`, `${round(p.api.p95Ms / Math.max(0.1, fleet.idle.api.p95Ms), 1)}×`, "p95 ≤ 150 ms", yes(p.api.p95Ms <= fleet.targets.apiP95Ms && p.api.non2xx === 0)]);
      out.push(["Fleet", `${procs}: environments page /, ${fleet.connections} clients while collecting`, `${p.page.p95Ms} ms (${n(p.page.requestsPerSecond)}/s)`, `collectors idle: ${fleet.idle.page.p95Ms} ms`, `${round(p.page.p95Ms / Math.max(0.1, fleet.idle.page.p95Ms), 1)}×`, "p95 ≤ 300 ms", yes(p.page.p95Ms <= fleet.targets.pageP95Ms && p.page.non2xx === 0)]);
      if (p.runs > 0) out.push(["Fleet", `${procs}: CPU per object per run (collectors / Postgres / kubesim / kube-apiserver+etcd), WAL per object per run`, `${p.cpuMicrosPerObjectRun.collectors} / ${p.cpuMicrosPerObjectRun.postgres} / ${p.cpuMicrosPerObjectRun.kubesim} / ${p.cpuMicrosPerObjectRun.kubeApiserver ?? "—"} µs; ${p.walBytesPerObjectRun} B`, "—", "—", "—", "—"]);
    }
    const s = fleet.storage;
    out.push(["Fleet", `Postgres growth at 1% churn per hour (${n(s.changedObjectsPerRound)} objects an hour, ${n(s.runsPerDay)} runs a day)`, `${n(round(s.perDayBytes / 1024 / 1024))} MiB/day (${n(round(s.growthBytesPerRound / 1024))} KiB per hour's churn)`, `changed objects ${n(round(s.changedBytesPerRound / 1024))} KiB an hour`, `${s.ratio}×`, "—", "—"]);
  }
  return out;
}

function markdown(outcomes: Outcome[], date: string, totalMs: number): string {
  const m = machine();
  const lines = [
    `# Driftwatch benchmarks`,
    "",
    `${date} · ${m.cpus} × ${m.cpuModel} · ${m.memoryGiB} GiB · Node ${m.node} · ${m.platform} · load average ${m.loadAverage1m} at the end · ${round(totalMs / 1000)} s in all`,
    "",
    "Ratios compare with a baseline measured in the same run on the same machine (shared and noisy: absolute times move with the load; the ratios move less).",
    "",
    "| Benchmark | Measure | Result | Baseline | Ratio | Target | Met |",
    "|---|---|---|---|---|---|---|",
    ...rows(outcomes).map((r) => `| ${r.join(" | ")} |`),
    "",
    "| Benchmark | Time | Status |",
    "|---|---|---|",
    ...outcomes.map((o) => `| ${o.name} | ${round(o.ms / 1000)} s | ${o.error ? `failed: ${o.error}` : "ok"} |`),
    "",
  ];
  return lines.join("\n");
}

export async function main(): Promise<{ outcomes: Outcome[]; totalMs: number }> {
  const onlyIdx = process.argv.indexOf("--only");
  const only = onlyIdx >= 0 ? new Set((process.argv[onlyIdx + 1] ?? "").split(",")) : null;
  const selected = benches(process.argv.includes("--full"), stringArg("scale")).filter((b) => (only ? only.has(b.name) : !b.onlyWhenNamed));
  const started = performance.now();
  const date = new Date().toISOString();
  const outcomes: Outcome[] = [];
  for (const b of selected) {
    console.log(`▶ ${b.name}`);
    const o = await runOne(b);
    console.log(`  ${b.name}: ${round(o.ms / 1000)} s${o.error ? ` — ${o.error}` : ""}`);
    outcomes.push(o);
  }
  const totalMs = performance.now() - started;
  const dir = path.join(ROOT, "bench", "results");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "latest.json"), `${JSON.stringify({ date, machine: machine(), totalMs: round(totalMs), budgetMs: BUDGET_MS, results: Object.fromEntries(outcomes.map((o) => [o.name, { ms: round(o.ms), error: o.error, result: o.result }])) }, null, 2)}\n`);
  const md = markdown(outcomes, date, totalMs);
  fs.writeFileSync(path.join(dir, "latest.md"), md);
  console.log(`\n${md}`);
  console.log(`${round(totalMs / 1000)} s in all (budget ${BUDGET_MS / 1000} s)${totalMs > BUDGET_MS ? " — OVER BUDGET" : ""}; bench/results/latest.json, bench/results/latest.md`);
  if (outcomes.some((o) => o.error)) process.exitCode = 1;
  return { outcomes, totalMs };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.join(ROOT, "bench", "run.ts")) {
  void main();
}
