// Dashboard read queries at scale: one environment with 10,000 open drift
// items (plus four more with 1,000 each), then the drift page query in every
// sort order, first page and deep pages (keyset cursors), the environments
// list and the environment detail. Prints timings (p50/p95 over repeated
// runs) and, per sort order, whether the plan walks an index or sorts.
//
//   npx tsx bench/api-queries.ts [--items N] [--rounds N]
//
// Starts its own embedded Postgres in a temporary folder (removed afterwards).
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { startEmbeddedPostgres } from "@driftwatch/embedded-postgres";
import { applyMigrations } from "../lib/db/migrate";
import { disconnectPrisma, getPrisma } from "../lib/db";
import { driftPageSql, listDrift } from "../lib/dashboard/drift";
import { getEnvironmentDetail, listEnvironments } from "../lib/dashboard/environments";
import { DRIFT_SORTS, driftQuerySchema } from "../lib/api/contract/drift";
import { seedManyDrift, seedShop } from "../test/fixtures/dashboard";

export interface QueryTiming {
  name: string;
  p50Ms: number;
  p95Ms: number;
  plan?: string;
}

export interface ApiQueriesResult {
  items: number;
  rounds: number;
  timings: QueryTiming[];
  loadAverage1m: number;
}

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : NaN;
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

async function time(rounds: number, fn: () => Promise<unknown>): Promise<{ p50Ms: number; p95Ms: number }> {
  await fn(); // warm caches and prepared plans
  const ms: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  const at = (p: number) => Math.round((ms[Math.min(ms.length - 1, Math.ceil(p * ms.length) - 1)] ?? 0) * 10) / 10;
  return { p50Ms: at(0.5), p95Ms: at(0.95) };
}

/** The top of the plan, compressed: "Limit > Index Scan using …" or "Limit > Sort > Seq Scan". */
async function planOf(client: pg.Client, sql: { text: string; values: unknown[] }): Promise<string> {
  const r = await client.query<{ "QUERY PLAN": string }>(`EXPLAIN ${sql.text}`, sql.values);
  return r.rows
    .map((x) => x["QUERY PLAN"].trim().replace(/^->\s*/, "").replace(/\s+\(cost=.*$/, ""))
    .filter((l) => /Scan|Sort|Limit/.test(l))
    .slice(0, 4)
    .join(" > ");
}

export async function runApiQueriesBench(items = 10_000, rounds = 30): Promise<ApiQueriesResult> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "driftwatch-bench-api-"));
  const server = await startEmbeddedPostgres({ dataDir: dir });
  const previous = process.env.DATABASE_URL;
  try {
    await applyMigrations(server.url);
    process.env.DATABASE_URL = server.url;
    const db = getPrisma();
    await seedShop(db);
    const bulk = await db.environment.create({ data: { name: "bulk", position: 9, branch: "main", path: ".", spec: {} } });
    await seedManyDrift(db, bulk.id, items);
    for (let i = 0; i < 4; i++) {
      const e = await db.environment.create({ data: { name: `team-${i}`, position: 10 + i, branch: "main", path: ".", spec: {} } });
      await seedManyDrift(db, e.id, Math.round(items / 10));
    }
    await db.$executeRawUnsafe("ANALYZE");

    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    const timings: QueryTiming[] = [];
    const config = { path: "driftwatch.yaml", exists: true, declared: 9 };
    try {
      for (const sort of DRIFT_SORTS) {
        const q = driftQuerySchema.parse({ sort, limit: "50" });
        const first = await listDrift(db, "bulk", q);
        // A deep page: follow cursors 40 pages in, as a user paging far would.
        let cursor = first.nextCursor;
        for (let i = 0; i < 40 && cursor; i++) cursor = (await listDrift(db, "bulk", { ...q, cursor })).nextCursor;
        const deep = { ...q, cursor: cursor ?? undefined };
        timings.push({ name: `drift sort=${sort} first page`, ...(await time(rounds, () => listDrift(db, "bulk", q))), plan: await planOf(client, driftPageSql(bulk.id, q) as unknown as { text: string; values: unknown[] }) });
        timings.push({ name: `drift sort=${sort} page 41`, ...(await time(rounds, () => listDrift(db, "bulk", deep))), plan: await planOf(client, driftPageSql(bulk.id, deep) as unknown as { text: string; values: unknown[] }) });
      }
      const search = driftQuerySchema.parse({ q: "obj-0099", limit: "50" });
      timings.push({ name: "drift text search", ...(await time(rounds, () => listDrift(db, "bulk", search))) });
      const filtered = driftQuerySchema.parse({ type: "Extra", actor: "human", owner: "unowned", sort: "openedAt", dir: "desc" });
      timings.push({ name: "drift filtered (type, actor, owner)", ...(await time(rounds, () => listDrift(db, "bulk", filtered))) });
      timings.push({ name: "environments list (9 environments)", ...(await time(rounds, () => listEnvironments(db, config))) });
      timings.push({ name: "environment detail (bulk)", ...(await time(rounds, () => getEnvironmentDetail(db, "bulk"))) });
    } finally {
      await client.end();
    }
    return { items, rounds, timings, loadAverage1m: Math.round(os.loadavg()[0]! * 100) / 100 };
  } finally {
    await disconnectPrisma();
    if (previous === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = previous;
    await server.stop();
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

export async function main(): Promise<ApiQueriesResult> {
  const r = await runApiQueriesBench(arg("items", 10_000), arg("rounds", 30));
  for (const t of r.timings) console.log(`${t.name.padEnd(40)} p50 ${String(t.p50Ms).padStart(7)} ms  p95 ${String(t.p95Ms).padStart(7)} ms${t.plan ? `  ${t.plan}` : ""}`);
  console.log(JSON.stringify({ items: r.items, rounds: r.rounds, loadAverage1m: r.loadAverage1m }));
  return r;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
