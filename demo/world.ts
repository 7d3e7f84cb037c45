// The demo's moving parts: three Kubernetes API imitations, the Git
// repository they reconcile from, and a clock the scripted past can set.
import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";
import { startKubeSim, setKubeSimClock, type KubeSim } from "@driftwatch/kubesim";
import { createClusterClient } from "@/lib/kube/client";
import { discover } from "@/lib/kube/discovery";
import { DemoRepo } from "./repo";
import { ENV_NAMES, type EnvName } from "./script";
import type { DemoKube } from "./kube-writer";

export interface DemoClock {
  now(): Date;
  /** Freezes time at `at` (the scripted past). */
  set(at: Date): void;
  /** Back to real time. */
  release(): void;
}

export function createClock(): DemoClock {
  let frozen: Date | null = null;
  return {
    now: () => (frozen ? new Date(frozen) : new Date()),
    set: (at) => {
      frozen = new Date(at);
    },
    release: () => {
      frozen = null;
    },
  };
}

export interface DemoState {
  playedAt: string;
  /** Set once the whole scripted past has been played; a half-played demo starts over. */
  complete: boolean;
  tokens: { valid: string[]; byEnv: Record<EnvName, string> };
}

export interface DemoWorld {
  dir: string;
  repo: DemoRepo;
  sims: Record<EnvName, KubeSim>;
  kubes: Record<EnvName, DemoKube>;
  kubeconfigs: Record<EnvName, string>;
  clock: DemoClock;
  state: DemoState | null;
  stateFile: string;
  saveState(s: DemoState): void;
  /** Re-reads discovery (after CRDs are installed). */
  rediscover(env: EnvName): Promise<void>;
  stop(): Promise<void>;
}

export function newToken(): string {
  return `demo-${crypto.randomBytes(12).toString("hex")}`;
}

export async function startWorld(dir: string): Promise<DemoWorld> {
  const kubeDir = path.join(dir, "kube");
  fs.mkdirSync(kubeDir, { recursive: true });
  const clock = createClock();
  setKubeSimClock(() => clock.now());
  const sims = {} as Record<EnvName, KubeSim>;
  const kubes = {} as Record<EnvName, DemoKube>;
  const kubeconfigs = {} as Record<EnvName, string>;
  for (const env of ENV_NAMES) {
    kubeconfigs[env] = path.join(kubeDir, `${env}.kubeconfig`);
    sims[env] = await startKubeSim({
      state: path.join(kubeDir, `${env}.state.json`),
      kubeconfigPath: kubeconfigs[env],
      clusterName: env,
      adminPort: false,
      // A new user's `kubectl get pods`, `describe` and `rollout undo` against the demo work as on a cluster.
      workloadControllers: true,
    });
  }
  const stateFile = path.join(dir, "scenario.json");
  const world: DemoWorld = {
    dir,
    repo: new DemoRepo(path.join(dir, "repo")),
    sims,
    kubes,
    kubeconfigs,
    clock,
    state: fs.existsSync(stateFile) ? (JSON.parse(fs.readFileSync(stateFile, "utf8")) as DemoState) : null,
    stateFile,
    saveState(s) {
      this.state = s;
      fs.writeFileSync(stateFile, JSON.stringify(s, null, 2));
    },
    async rediscover(env) {
      const client = createClusterClient({ kubeconfig: kubeconfigs[env], context: env });
      kubes[env] = { client, discovery: await discover(client) };
    },
    async stop() {
      for (const env of ENV_NAMES) await sims[env].stop();
    },
  };
  for (const env of ENV_NAMES) await world.rediscover(env);
  return world;
}
