// npm run demo [-- --reset]: the whole product on one machine with no cluster.
// Embedded Postgres, three Kubernetes API imitations reconciled by demo Flux
// and Argo CD controllers, a generated Git history, a scripted incident, and
// the dashboard with its collector — one process tree, stopped with Ctrl-C.
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { reset: { type: "boolean", default: false }, e2e: { type: "boolean", default: false } } });
const root = process.cwd();
process.env.DRIFTWATCH_DATA_DIR ||= path.join(root, ".data", "demo");
const dir = path.resolve(process.env.DRIFTWATCH_DATA_DIR);
process.env.DRIFTWATCH_CONFIG = path.join(dir, "driftwatch.yaml");
process.env.LOG_LEVEL ||= "warn";

async function main(): Promise<void> {
  const started = Date.now();
  if (values.reset && fs.existsSync(dir)) {
    console.log(`Resetting the demo: removing ${dir}`);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  fs.mkdirSync(dir, { recursive: true });
  // Imported after the environment is set: these modules read it once.
  const { ensureProductionBuildAsync } = await import("@/lib/server/build");
  const { bootServer, stopOnSignals } = await import("@/lib/server/boot");
  const { embeddedPostgres } = await import("@driftwatch/embedded-postgres");
  const { startWorld } = await import("@/demo/world");
  const { demoConfigYaml } = await import("@/demo/config");
  const { ensureDemoUsers, DEMO_ACCOUNTS } = await import("@/demo/users");
  const { playHistory } = await import("@/demo/play");
  const { startControllers } = await import("@/demo/live");
  const { resetDatabase } = await import("@/lib/db/testing");
  let resetDemoDatabase = false;

  const build = ensureProductionBuildAsync(root, (m) => console.log(m));
  build.catch(() => undefined); // awaited by bootServer; avoid an unhandled rejection before then
  let world = await startWorld(dir);
  if (world.state && !world.state.complete) {
    // A demo stopped while playing its history: start it over rather than show half a story.
    console.log("The last demo start did not finish playing its history; starting over.");
    await world.stop();
    for (const entry of fs.readdirSync(dir)) if (entry !== "postgres") fs.rmSync(path.join(dir, entry), { recursive: true, force: true });
    world = await startWorld(dir);
    resetDemoDatabase = true;
  }
  if (!world.repo.exists()) await world.repo.init();
  fs.writeFileSync(process.env.DRIFTWATCH_CONFIG as string, demoConfigYaml(world));

  let stopControllers: (() => Promise<void>) | null = null;
  const server = await bootServer({
    build,
    inProcessCollector: true,
    embedded: embeddedPostgres,
    log: (m) => console.log(m),
    afterDatabase: async (prepared) => {
      if (resetDemoDatabase) await resetDatabase(prepared.db, prepared.ownerUrl);
      const users = await ensureDemoUsers(prepared.db);
      if (!world.state?.complete) {
        await playHistory({ world, db: prepared.db, config: prepared.config, users, log: (m) => console.log(m) });
      } else {
        console.log(`Resuming the demo played at ${world.state.playedAt} (npm run demo -- --reset starts over)`);
      }
      stopControllers = startControllers(world, (m) => console.error(m));
      return async () => {
        await stopControllers?.();
        await world.stop();
      };
    },
  });

  const rel = (p: string) => path.relative(root, p) || p;
  console.log(`
Driftwatch demo is serving ${server.url}   (ready in ${((Date.now() - started) / 1000).toFixed(0)} s)

Sign in as:
${DEMO_ACCOUNTS.map((a) => `  ${a.role.padEnd(9)} ${a.username.padEnd(9)} password: ${a.password}`).join("\n")}

Make your own manual change and watch it appear, attributed, within seconds:
  kubectl --kubeconfig ${rel(world.kubeconfigs.test)} -n shop label deployment web owner=$USER
  kubectl --kubeconfig ${rel(world.kubeconfigs.staging)} -n shop set env deployment/web FEATURE_BANNER=on
  kubectl --kubeconfig ${rel(world.kubeconfigs.production)} -n shop scale deployment worker --replicas=5
(Stop with Ctrl-C; \`npm run demo\` again resumes, \`npm run demo -- --reset\` starts over.)
`);
  stopOnSignals(server);
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : e);
  process.exit(1);
});
