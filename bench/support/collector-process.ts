// Starts bench/support/collector-child.ts (the collector alone, in a process of
// its own) and talks to it over node's IPC channel, one request at a time.
import { spawn } from "node:child_process";
import path from "node:path";
import type { RunOutcome } from "../../lib/collector/run-context";
import type { CollectorChildArgs } from "./collector-child";
import { nodeArgsFor } from "./node-child";

export interface CollectorChild {
  /** One collection, start to finish; its peak RSS is the process's high-water mark, reset after a full GC before the run. */
  collect(opts?: { profile?: boolean }): Promise<{ value: RunOutcome & { ms: number }; peakRss: number; git: { total: number; bySubcommand: Record<string, number> } }>;
  /** Resident memory and heap in use after a full GC (bytes). */
  rss(): Promise<{ rss: number; heapUsed: number }>;
  saveProfile(file: string): Promise<void>;
  stop(): Promise<void>;
}

type Answer = { ok: true; [k: string]: unknown } | { ok: false; error: string };

export async function startCollectorChild(args: CollectorChildArgs, nodeFlags: readonly string[]): Promise<CollectorChild> {
  // Bundled under plain node, as `npm run collector` runs the collector.
  const script = await nodeArgsFor(path.join(import.meta.dirname, "collector-child.ts"), true);
  // DATABASE_URL (the bench's database) is in this process's environment and goes with it.
  const child = spawn(process.execPath, ["--expose-gc", ...nodeFlags, ...script, JSON.stringify(args)], { stdio: ["ignore", "inherit", "inherit", "ipc"], env: process.env });
  let waiting: { resolve: (a: Answer) => void; reject: (e: Error) => void } | null = null;
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  child.on("message", (m: Answer) => {
    const w = waiting;
    waiting = null;
    w?.resolve(m);
  });
  child.on("exit", (code, signal) => {
    const w = waiting;
    waiting = null;
    w?.reject(new Error(`the collector process ended (${signal ?? `code ${code}`})`));
  });
  const next = () =>
    new Promise<Answer>((resolve, reject) => {
      waiting = { resolve, reject };
    });
  const ask = async (req: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const answer = next();
    child.send(req);
    const a = await answer;
    if (!a.ok) throw new Error(`collector process: ${a.error}`);
    return a;
  };
  return next().then((ready) => {
    if (!ready.ok) throw new Error(`collector process: ${ready.error}`);
    return {
      collect: async (opts = {}) => (await ask({ op: "collect", ...opts })) as unknown as Awaited<ReturnType<CollectorChild["collect"]>>,
      rss: async () => (await ask({ op: "rss" })) as unknown as { rss: number; heapUsed: number },
      saveProfile: async (file) => void (await ask({ op: "save-profile", file })),
      async stop() {
        if (child.exitCode === null && child.signalCode === null) child.disconnect();
        await exited;
      },
    };
  });
}
