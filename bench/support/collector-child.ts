// The collector of the collection benchmark in a process of its own, doing
// nothing but collect: the harness (objects generated and seeded into the API
// imitation, manifests written, churn between runs) runs in the process that
// starts this one. Its peak resident memory is then the collector's alone — a
// harness that generated 50,000 objects leaves the process hundreds of MiB
// larger before any run starts (V8 and malloc keep the pages), and the kernel's
// high-water mark cannot be reset below the current size.
//
// Started by bench/collect.ts's size process (with the collector's heap limit
// and --expose-gc) on a node IPC channel; answers one message per request:
//   { op: "collect", profile?: boolean } → { ok, value: run outcome + ms, peakRss, git: { total, bySubcommand } }
//   { op: "save-profile", file }         → { ok }
//   { op: "rss" }                        → { ok, rss, heapUsed } (after a full GC; before the first run: the floor)
//
//   bundled by bench/support/node-child.ts and run as: node --expose-gc [--max-old-space-size=N] --enable-source-maps .build/bench/collector-child.mjs '<json: CollectorChildArgs>'
import { getPrisma, disconnectPrisma } from "../../lib/db";
import { gitProcessCounts, resetGitProcessCounts } from "../../lib/git/exec";
import { startProfiler } from "./profiler";
import { benchConfig, benchContext, collectOnce, type BenchEnvSpec } from "./fixtures";
import { isMain, withHighWaterRss } from "./stats";

export interface CollectorChildArgs {
  repoDir: string;
  kubeconfigPath: string;
  envs: BenchEnvSpec[];
  mirrorsDir: string;
  environment: string;
}

type Request = { op: "collect"; profile?: boolean } | { op: "save-profile"; file: string } | { op: "rss" };

async function main(): Promise<void> {
  const args = JSON.parse(process.argv[2] ?? "{}") as CollectorChildArgs;
  const send = process.send?.bind(process);
  if (!send) throw new Error("collector-child.ts runs on an IPC channel (started by bench/collect.ts)");
  const { config } = benchConfig(args.repoDir, args.kubeconfigPath, args.envs);
  const ctx = benchContext(getPrisma(), config, args.mirrorsDir);
  const gc = () => (globalThis as { gc?: () => void }).gc?.();
  let profiler: Awaited<ReturnType<typeof startProfiler>> | null = null;

  const handle = async (req: Request): Promise<Record<string, unknown>> => {
    switch (req.op) {
      case "collect": {
        if (req.profile) await (profiler ??= await startProfiler()).resume();
        // The last run's garbage is not this run's peak.
        gc();
        resetGitProcessCounts();
        const run = await withHighWaterRss(() => collectOnce(ctx, args.environment));
        if (req.profile) await profiler?.pause();
        const git = gitProcessCounts();
        return { value: run.value, peakRss: run.peakRss, git: { total: git.total, bySubcommand: git.bySubcommand } };
      }
      case "save-profile":
        await profiler?.save(req.file);
        return {};
      case "rss": {
        gc();
        const m = process.memoryUsage();
        return { rss: m.rss, heapUsed: m.heapUsed };
      }
    }
  };

  process.on("message", (req: Request) => {
    handle(req).then(
      (answer) => send({ ok: true, ...answer }),
      (e: unknown) => send({ ok: false, error: e instanceof Error ? (e.stack ?? e.message) : String(e) }),
    );
  });
  // Ends with its channel: the size process is done with it (or gone).
  process.on("disconnect", () => {
    void disconnectPrisma().finally(() => process.exit(0));
  });
  // Prisma starts its query engine on the first query (~60 MiB resident, little of it heap): started here, so the
  // RSS at rest the harness asks for is the floor under every run (modules loaded, engine up, no data yet).
  await getPrisma().$queryRaw`SELECT 1`;
  send({ ok: true, ready: true });
}

if (isMain(import.meta.url)) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
