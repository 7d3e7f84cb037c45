// The dashboard under load: 5 environments holding 100,000 live (and
// desired) objects and 5,000 open drift items, written straight into
// Postgres; the production server (`next start` on the existing build) in a
// process of its own; 50 concurrent signed-in clients (autocannon) on
// GET /api/environments/{env}/drift and on the environments page `/`.
//
// The server is what `npm start` runs (scripts/start.ts: the Next.js handler
// in DRIFTWATCH_WEB_PROCESSES web processes, "auto": one per CPU but one, 1–4),
// against the bench's database, with no in-process collector.
//
//   npx tsx bench/api.ts [--duration 10] [--connections 50] [--web-processes N] [--build] [--profile-server /tmp/next-prof] [--serve]
//
// --serve keeps the seeded server running (printing its URL and a session
// cookie) until Ctrl-C, then measures as usual.
//
// --build runs `next build` first; without it the bench uses the build in
// .next (and builds only when it is missing or older than the sources), and
// reports the build's age.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { stringify } from "yaml";
import type { PrismaClient } from "../lib/db/generated/client";
import { seedCommits, seedManyDrift, seedRepository, sha } from "../test/fixtures/dashboard";
import { startBenchDatabase } from "./support/db";
import { buildIsCurrent } from "../lib/server/build";
import { viewerCookie } from "./support/fixtures";
import { flag, loadAverage, numberArg, round, runIfMain, stringArg } from "./support/stats";
import { load, rssOf, startWebServer, type Autocannon, type LoadResult } from "./support/web";

const ROOT = path.resolve(import.meta.dirname, "..");

export interface ApiBenchResult {
  environments: number;
  liveObjects: number;
  driftItems: number;
  connections: number;
  durationSeconds: number;
  seedMs: number;
  build: { builtNow: boolean; ageMinutes: number };
  webProcesses: string;
  api: LoadResult;
  page: LoadResult;
  /** The same with one client: the service time without queueing (Little's law: 50 clients wait ≈ 50 / throughput). */
  single: { api: LoadResult; page: LoadResult };
  /**
   * Same-run baseline: the sign-in page (public, no data, no session) under the
   * same load — what one Next.js page render costs here before any of ours.
   */
  barePage: LoadResult;
  serverPeakRssMiB: number;
  loadAverage1m: number;
  targets: { apiP95Ms: number; pageP95Ms: number; apiMet: boolean; pageMet: boolean };
}

const ENVIRONMENTS = 5;
const OBJECTS_PER_ENV = 20_000;
const DRIFT_PER_ENV = 1_000;

/** Environments with revisions, an applied revision, and their objects and drift, in bulk SQL. */
async function seed(db: PrismaClient): Promise<{ names: string[] }> {
  const repo = await seedRepository(db, "bench", "https://git.example.com/acme/bench.git");
  const now = Date.now();
  const commits = Array.from({ length: 40 }, (_, i) => ({
    sha: sha(`bench-${i}`),
    parents: i === 0 ? [] : [sha(`bench-${i - 1}`)],
    message: `change ${i}`,
    at: new Date(now - (40 - i) * 3_600_000),
    paths: [`envs/env-${i % ENVIRONMENTS}/app.yaml`],
  }));
  await seedCommits(db, repo.id, commits);
  const head = commits[commits.length - 1]?.sha ?? null;
  const names: string[] = [];
  for (let e = 0; e < ENVIRONMENTS; e++) {
    const name = `env-${e}`;
    names.push(name);
    const env = await db.environment.create({
      data: {
        name,
        position: e,
        repositoryId: repo.id,
        branch: "main",
        path: `envs/${name}`,
        spec: { name, source: { repository: "bench", branch: "main", path: `envs/${name}`, render: "plain" }, interval: 60_000, staleAfter: 600_000 },
        approvedSha: head,
        appliedSha: head,
        appliedSource: "inferred",
        appliedSince: new Date(now - 3_600_000),
        objectCount: OBJECTS_PER_ENV,
        lastCollectedAt: new Date(now - 30_000),
        lastGoodCollectedAt: new Date(now - 30_000),
      },
    });
    if (head) await db.appliedRevision.create({ data: { environmentId: env.id, sha: head, source: "inferred", firstSeenAt: new Date(now - 3_600_000), lastSeenAt: new Date(now - 30_000) } });
    // Objects: one blob per object (as a real environment has), rows on both sides.
    await db.$executeRawUnsafe(
      `INSERT INTO "ObjectBlob" (hash, body, size)
       SELECT md5($1 || ':' || i), jsonb_build_object('apiVersion', 'v1', 'kind', 'ConfigMap',
                'metadata', jsonb_build_object('name', 'cm-' || i, 'namespace', 'team-' || (i % 20), 'labels', jsonb_build_object('app', 'app-' || (i / 10))),
                'data', jsonb_build_object('application.yaml', repeat('x', 400), 'LOG_LEVEL', 'info')), 520
       FROM generate_series(0, $2::int - 1) AS i`,
      name,
      OBJECTS_PER_ENV,
    );
    for (const table of ["LiveObject", "DesiredObject"]) {
      const extra = table === "LiveObject" ? `"resourceVersion"` : `"revisionSha", "sourcePath"`;
      const extraValues = table === "LiveObject" ? `(1000 + i)::text` : `$3, 'app.yaml'`;
      await db.$executeRawUnsafe(
        `INSERT INTO "${table}" ("environmentId", key, "apiVersion", kind, namespace, name, "blobHash", ${extra}, "updatedAt")
         SELECT $1::uuid, '/ConfigMap/team-' || (i % 20) || '/cm-' || i, 'v1', 'ConfigMap', 'team-' || (i % 20), 'cm-' || i, md5($2 || ':' || i), ${extraValues}, now()
         FROM generate_series(0, ${OBJECTS_PER_ENV - 1}) AS i`,
        env.id,
        name,
        ...(table === "LiveObject" ? [] : [head ?? ""]),
      );
    }
    await seedManyDrift(db, env.id, DRIFT_PER_ENV);
  }
  await db.$executeRawUnsafe("VACUUM ANALYZE");
  return { names };
}

export async function runApiBench(
  opts: { duration?: number; connections?: number; webProcesses?: string; build?: boolean; profileDir?: string; serve?: boolean; log?: (m: string) => void } = {},
): Promise<ApiBenchResult> {
  const duration = opts.duration ?? 10;
  const connections = opts.connections ?? 50;
  const log = opts.log ?? (() => {});
  const buildId = path.join(ROOT, ".next", "BUILD_ID");
  let builtNow = false;
  if (opts.build || !buildIsCurrent(ROOT)) {
    log("api: building the dashboard (next build)…");
    const b = spawnSync("npx", ["next", "build"], { cwd: ROOT, stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
    if (b.status !== 0) throw new Error("next build failed");
    builtNow = true;
  }
  const ageMinutes = round((Date.now() - fs.statSync(buildId).mtimeMs) / 60_000, 1);

  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "driftwatch-bench-api-"));
  const database = await startBenchDatabase("api");
  let server: Awaited<ReturnType<typeof startWebServer>> | null = null;
  try {
    const t = performance.now();
    const { names } = await seed(database.db);
    const seedMs = performance.now() - t;
    // One signed-in viewer per client.
    const cookies: string[] = [];
    for (let i = 0; i < connections; i++) cookies.push(await viewerCookie(database.db));
    const cookie = cookies[0] as string;
    const configFile = path.join(dir, "driftwatch.yaml");
    fs.writeFileSync(
      configFile,
      stringify({
        repositories: [{ name: "bench", url: "https://git.example.com/acme/bench.git" }],
        environments: names.map((n) => ({ name: n, cluster: { kubeconfig: path.join(dir, "no-kubeconfig") }, source: { repository: "bench", branch: "main", path: `envs/${n}` } })),
      }),
    );
    // --profile-server <dir>: a CPU profile of each server process (the web processes too), written when it stops.
    const webProcesses = opts.webProcesses ?? "auto";
    server = await startWebServer({ databaseUrl: database.url, configFile, dataDir: dir, cookie, readyPath: "/api/environments/env-0/drift", webProcesses, profileDir: opts.profileDir });
    const base = server.base;
    const pid = server.child.pid ?? 0;
    let peak = rssOf(pid);
    const sample = () => {
      peak = Math.max(peak, rssOf(pid));
    };
    // Warm the server (route compilation caches, connection pool) before measuring.
    for (let i = 0; i < 20; i++) {
      await fetch(`${base}/api/environments/env-${i % ENVIRONMENTS}/drift`, { headers: { cookie } }).then((r) => r.arrayBuffer());
      await fetch(`${base}/`, { headers: { cookie } }).then((r) => r.arrayBuffer());
    }
    if (opts.serve) {
      // --serve: keep the seeded server up for probing by hand, until Ctrl-C.
      console.log(`serving ${base}\ncookie: ${cookie}\nnpx autocannon -c ${connections} -d ${duration} -H 'cookie: ${cookie}' ${base}/api/environments/env-2/drift`);
      await new Promise<void>((resolve) => process.once("SIGINT", () => resolve()));
    }
    const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;
    log(`api: ${connections} clients × ${duration} s on the drift API, then on the environments page`);
    const api = await load(autocannon, `${base}/api/environments/env-2/drift`, cookies, connections, duration, sample, pid);
    const page = await load(autocannon, `${base}/`, cookies, connections, duration, sample, pid);
    const barePage = await load(autocannon, `${base}/signin`, [], connections, duration, sample, pid);
    const single = {
      api: await load(autocannon, `${base}/api/environments/env-2/drift`, [cookie], 1, 3, sample, pid),
      page: await load(autocannon, `${base}/`, [cookie], 1, 3, sample, pid),
    };
    log(`api: drift API p50 ${api.p50Ms} ms p95 ${api.p95Ms} ms (${api.requestsPerSecond}/s); page p50 ${page.p50Ms} ms p95 ${page.p95Ms} ms (${page.requestsPerSecond}/s)`);
    log(`api: server CPU per request: drift API ${api.serverCpuMsPerRequest} ms, page ${page.serverCpuMsPerRequest} ms, bare page ${barePage.serverCpuMsPerRequest} ms`);
    log(`api: baseline, the bare sign-in page: p50 ${barePage.p50Ms} ms p95 ${barePage.p95Ms} ms (${barePage.requestsPerSecond}/s)`);
    log(`api: one client: drift API p50 ${single.api.p50Ms} ms p95 ${single.api.p95Ms} ms; page p50 ${single.page.p50Ms} ms p95 ${single.page.p95Ms} ms`);
    return {
      environments: ENVIRONMENTS,
      liveObjects: ENVIRONMENTS * OBJECTS_PER_ENV,
      driftItems: ENVIRONMENTS * DRIFT_PER_ENV,
      connections,
      durationSeconds: duration,
      seedMs: round(seedMs),
      build: { builtNow, ageMinutes },
      webProcesses,
      api,
      page,
      single,
      barePage,
      serverPeakRssMiB: round(peak / 1024 / 1024),
      loadAverage1m: loadAverage(),
      targets: { apiP95Ms: 150, pageP95Ms: 300, apiMet: api.p95Ms <= 150 && api.non2xx === 0, pageMet: page.p95Ms <= 300 && page.non2xx === 0 },
    };
  } finally {
    await server?.stop();
    await database.stop();
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

export async function main(): Promise<ApiBenchResult> {
  const r = await runApiBench({
    duration: numberArg("duration", 10),
    connections: numberArg("connections", 50),
    build: flag("build"),
    profileDir: stringArg("profile-server"),
    webProcesses: stringArg("web-processes"),
    serve: flag("serve"),
    log: (m) => console.log(m),
  });
  console.log(JSON.stringify(r));
  return r;
}

runIfMain(import.meta.url, main);
