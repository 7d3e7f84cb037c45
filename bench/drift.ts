// Drift engine throughput: 20,000 realistic desired/live Deployment pairs
// (live as the API server returns it: defaults, status, managedFields; 10%
// drifted by hand), compareObject over all of them, against a plain
// structural diff (microdiff) over the same raw pairs in the same process.
//
//   npx tsx bench/drift.ts [--pairs N] [--rounds N]
//
// Prints one JSON line: objectsPerSecond, baselineObjectsPerSecond, ratio
// (engine time / baseline time; target ≤ 3) and the targets it checks.

import { loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import diff from "microdiff";
import { compareObject, createCompareContext, type KubeObject } from "../lib/drift/index";
import { desiredDeployment, dropOwnership, liveDeployment, managedFieldsOf } from "../lib/drift/test-fixtures";

type Obj = Record<string, unknown>;

export interface DriftBenchResult {
  pairs: number;
  drifted: number;
  modified: number;
  rounds: number;
  objectsPerSecond: number;
  baselineObjectsPerSecond: number;
  ratio: number;
  /** The same rates over this process's CPU time: steadier than wall time when other work shares the cores. */
  objectsPerCpuSecond: number;
  baselineObjectsPerCpuSecond: number;
  /** 1-minute load average when the run ended: absolute rates fall when other work shares the cores; the ratio holds. */
  loadAverage1m: number;
  targets: { objectsPerSecond: number; maxRatio: number; met: boolean };
}

function apiContainer(obj: KubeObject): Obj {
  const containers = (((obj.spec as Obj).template as Obj).spec as Obj).containers as Obj[];
  return containers[0] as Obj;
}

/** Hand-made drift, the way it reaches a real cluster (value and managedFields both change). */
function drift(live: KubeObject, variant: number, at: string): void {
  const mf = managedFieldsOf(live);
  const containerFields = (inner: Obj): Obj => ({ "f:spec": { "f:template": { "f:spec": { "f:containers": { 'k:{"name":"api"}': inner } } } } });
  switch (variant % 4) {
    case 0: // kubectl scale
      (live.spec as Obj).replicas = ((live.spec as Obj).replicas as number) + 2;
      dropOwnership(live, "kustomize-controller", ["f:spec", "f:replicas"]);
      mf.push({ manager: "kubectl", operation: "Update", subresource: "scale", time: at, fieldsType: "FieldsV1", fieldsV1: { "f:spec": { "f:replicas": {} } } });
      break;
    case 1: // kubectl edit of the image
      apiContainer(live).image = `registry.example.com/shop/api:hotfix-${variant}`;
      mf.push({ manager: "kubectl-edit", operation: "Update", time: at, fieldsType: "FieldsV1", fieldsV1: containerFields({ "f:image": {} }) });
      break;
    case 2: // kubectl set env
      (apiContainer(live).env as Obj[]).push({ name: "DEBUG", value: "true" });
      mf.push({
        manager: "kubectl-set",
        operation: "Update",
        time: at,
        fieldsType: "FieldsV1",
        fieldsV1: containerFields({ "f:env": { 'k:{"name":"DEBUG"}': { ".": {}, "f:name": {}, "f:value": {} } } }),
      });
      break;
    default: // kubectl set resources
      ((apiContainer(live).resources as Obj).limits as Obj).memory = "1Gi";
      mf.push({ manager: "kubectl-set", operation: "Update", time: at, fieldsType: "FieldsV1", fieldsV1: containerFields({ "f:resources": { "f:limits": { "f:memory": {} } } }) });
  }
}

export function generatePairs(n: number): { desired: KubeObject[]; live: KubeObject[]; drifted: number } {
  const desired: KubeObject[] = [];
  const live: KubeObject[] = [];
  let drifted = 0;
  for (let i = 0; i < n; i++) {
    const input = {
      name: `svc-${i}`,
      namespace: `team-${i % 40}`,
      image: `registry.example.com/team-${i % 40}/svc-${i}:1.${i % 17}.${i % 5}`,
      replicas: 1 + (i % 5),
      // Git spells some quantities differently from the server.
      cpuRequest: i % 3 === 0 ? 0.25 : "250m",
      memoryLimit: i % 4 === 0 ? "0.5Gi" : "512Mi",
      withSidecar: i % 2 === 0,
      applyTime: `2024-05-01T${String(i % 24).padStart(2, "0")}:00:00Z`,
    };
    desired.push(desiredDeployment(input));
    const l = liveDeployment(input, i);
    if (i % 10 === 3) {
      drift(l, Math.floor(i / 10), `2024-05-02T${String(i % 24).padStart(2, "0")}:30:00Z`);
      drifted++;
    }
    live.push(l);
  }
  return { desired, live, drifted };
}

/** Wall time and this process's CPU time, in ms. */
function timeIt(fn: () => void): { wall: number; cpu: number } {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  fn();
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  const c = process.cpuUsage(c0);
  return { wall, cpu: (c.user + c.system) / 1000 };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

export function runDriftBench(pairs = 20_000, rounds = 5): DriftBenchResult {
  const { desired, live, drifted } = generatePairs(pairs);
  const ctx = createCompareContext({ controllerManagers: ["kustomize-controller"], controllerManaged: true });
  let modified = 0;
  let sink = 0;
  const engine = () => {
    modified = 0;
    for (let i = 0; i < pairs; i++) if (compareObject(desired[i] ?? null, live[i] ?? null, ctx).type === "Modified") modified++;
  };
  const baseline = () => {
    for (let i = 0; i < pairs; i++) sink += diff(desired[i] as Obj, live[i] as Obj).length;
  };
  // Warm both up so the JIT treats them alike.
  engine();
  baseline();
  const engineT: { wall: number; cpu: number }[] = [];
  const baselineT: { wall: number; cpu: number }[] = [];
  for (let r = 0; r < rounds; r++) {
    // Alternate the order so neither always runs on a hotter or more fragmented heap.
    if (r % 2 === 0) {
      engineT.push(timeIt(engine));
      baselineT.push(timeIt(baseline));
    } else {
      baselineT.push(timeIt(baseline));
      engineT.push(timeIt(engine));
    }
  }
  if (sink < 0) console.error(sink);
  const e = median(engineT.map((t) => t.wall));
  const b = median(baselineT.map((t) => t.wall));
  const ec = median(engineT.map((t) => t.cpu));
  const bc = median(baselineT.map((t) => t.cpu));
  const objectsPerSecond = Math.round((pairs / e) * 1000);
  const baselineObjectsPerSecond = Math.round((pairs / b) * 1000);
  const ratio = Math.round((e / b) * 100) / 100;
  return {
    pairs,
    drifted,
    modified,
    rounds,
    objectsPerSecond,
    baselineObjectsPerSecond,
    ratio,
    objectsPerCpuSecond: Math.round((pairs / ec) * 1000),
    baselineObjectsPerCpuSecond: Math.round((pairs / bc) * 1000),
    loadAverage1m: Math.round((loadavg()[0] ?? 0) * 100) / 100,
    targets: { objectsPerSecond: 20_000, maxRatio: 3, met: objectsPerSecond >= 20_000 && ratio <= 3 && modified === drifted },
  };
}

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const v = i >= 0 ? Number(process.argv[i + 1]) : NaN;
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

export function main(): DriftBenchResult {
  const result = runDriftBench(arg("--pairs", 20_000), arg("--rounds", 5));
  console.log(JSON.stringify(result));
  return result;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = main();
  if (!r.targets.met) process.exitCode = 1;
}
