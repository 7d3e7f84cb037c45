// An audited mutation while an unauthenticated flood hits the same database:
// PATCH /api/users/{name} by an admin (it writes a `user.updated` audit event
// under the chain's lock) one at a time, first with nothing else going on
// (idle), then while another process — a second web process taking the flood —
// sends 10,000 bad password sign-ins and 10,000 OIDC callback errors from many
// addresses through the real route handlers. Failed attempts write at most one
// audit transaction at a time per process and aggregate per address and window
// (lib/auth/failed-attempts.ts), so the mutation's p95 should stay within 2× of
// idle. Both measurements run in this process, against the same database;
// the idle baseline is taken before and after the flood (half each).
//
//   npx tsx bench/auth-flood.ts [--idle 200] [--concurrency 16] [--flood-nice N] [--control]
//
// --control floods with as many requests that touch neither the database nor
// the audit log (GET /api/auth/session without a cookie): what the same
// request rate costs the mutation through CPU sharing alone.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { NextRequest } from "next/server";
import { resetConfigCache } from "../lib/config/index";
import { resetEnvCache } from "../lib/env/index";
import { createTestSession } from "../lib/auth/testing";
import { createLocalUser } from "../lib/auth/users";
import { failedAttemptAudit } from "../lib/auth/failed-attempts";
import { PATCH as patchUser } from "../app/api/users/[username]/route";
import { GET as getSession } from "../app/api/auth/session/route";
import { flood, type FloodOutcome } from "../test/support/auth-flood";
import { startBenchDatabase } from "./support/db";
import { loadAverage, numberArg, percentile, round, runIfMain } from "./support/stats";

export interface AuthFloodBenchResult {
  idle: { samples: number; p50Ms: number; p95Ms: number };
  flood: { samples: number; p50Ms: number; p95Ms: number; signIns: number; callbackErrors: number; floodSeconds: number; requestsPerSecond: number };
  ratio: number;
  auditRowsAdded: number;
  loadAverage: number;
  targets: { met: boolean };
}

const OIDC_SECRET_ENV = "DW_BENCH_FLOOD_OIDC";

function writeConfig(dir: string): string {
  const file = path.join(dir, "driftwatch.yaml");
  // The provider is never reached: every callback in the flood fails before that.
  fs.writeFileSync(file, ["auth:", "  local: true", "  oidc:", "    issuer: http://127.0.0.1:9/", "    clientId: driftwatch", `    clientSecretEnv: ${OIDC_SECRET_ENV}`, ""].join("\n"));
  return file;
}

/** The flooding process: its own route handlers, its own failed-attempt audit, the same database. */
async function child(): Promise<void> {
  const concurrency = numberArg("concurrency", 16);
  if (process.argv.includes("--control")) {
    // The same number of requests, each answered without touching the database or the audit log.
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next++ < 20_000) await getSession(new NextRequest("http://localhost/api/auth/session", { headers: { host: "localhost" } }));
      }),
    );
    console.log(JSON.stringify({ signIn: { 200: 10_000 }, callback: { 200: 10_000 }, callbackThrottled: 0, ms: performance.now() - started } satisfies FloodOutcome));
    return;
  }
  const outcome = await flood({ signIns: 10_000, callbackErrors: 10_000, signInAddresses: 12, callbackAddresses: 500, concurrency, usernames: ["admin", "root", "ops"], octet: 77 });
  // The windows' summaries, written now rather than lost with this process.
  await failedAttemptAudit().flush({ everything: true });
  console.log(JSON.stringify(outcome));
}

async function mutate(headers: Record<string, string>, username: string, i: number): Promise<number> {
  const req = new NextRequest(`http://localhost/api/users/${username}`, { method: "PATCH", headers: { host: "localhost", ...headers }, body: JSON.stringify({ displayName: `Target ${i}` }) });
  const t = performance.now();
  const res = await patchUser(req, { params: Promise.resolve({ username }) });
  const ms = performance.now() - t;
  if (res.status !== 200) throw new Error(`the audited mutation answered ${res.status}: ${await res.text()}`);
  return ms;
}

export async function main(): Promise<AuthFloodBenchResult> {
  const idleSamples = numberArg("idle", 200);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-bench-flood-"));
  const saved = { config: process.env.DRIFTWATCH_CONFIG, secret: process.env[OIDC_SECRET_ENV] };
  process.env.DRIFTWATCH_CONFIG = writeConfig(dir);
  process.env[OIDC_SECRET_ENV] = "bench-flood-client-secret";
  resetEnvCache();
  resetConfigCache();
  const database = await startBenchDatabase("auth-flood");
  try {
    const db = database.db;
    const admin = await createTestSession(db, "admin", "bench-admin");
    await createLocalUser(db, { username: "target", role: "viewer", password: "a long enough password" }, { type: "system" });
    for (let i = 0; i < 20; i++) await mutate(admin.headers, "target", i); // warm-up

    const idle: number[] = [];
    for (let i = 0; i < idleSamples / 2; i++) idle.push(await mutate(admin.headers, "target", i));

    const rowsBefore = await db.auditEvent.count();
    const started = performance.now();
    const control = process.argv.includes("--control");
    const flooder = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "auth-flood.ts"), "--child", "--concurrency", String(numberArg("concurrency", 16)), ...(control ? ["--control"] : [])], {
      env: { ...process.env, LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    // --flood-nice N: the flooding process at a lower CPU priority, to tell CPU sharing apart from database and lock contention.
    const nice = numberArg("flood-nice", 0);
    if (nice > 0 && flooder.pid) os.setPriority(flooder.pid, nice);
    let output = "";
    flooder.stdout.on("data", (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => flooder.on("exit", resolve));
    let running = true;
    void exited.then(() => (running = false));
    // Measure from the moment the flood is under way (the child needs a second or two to load).
    const underWay = Date.now();
    while (running && Date.now() - underWay < (control ? 3_000 : 5_000) && (control || (await db.auditEvent.count()) === rowsBefore)) await new Promise((r) => setTimeout(r, 50));
    const during: number[] = [];
    let i = 0;
    while (running) during.push(await mutate(admin.headers, "target", i++));
    const code = await exited;
    const floodSeconds = (performance.now() - started) / 1000;
    const outcome = JSON.parse(output.trim().split("\n").pop() ?? "null") as FloodOutcome | null;
    if (code !== 0 || !outcome) throw new Error(`the flooding process exited with ${code}`);
    const rowsAdded = (await db.auditEvent.count()) - rowsBefore - during.length;
    // Idle again after the flood: on a shared machine the load moves, and a baseline taken only before would measure that too.
    for (let j = 0; j < idleSamples / 2; j++) idle.push(await mutate(admin.headers, "target", j));

    const idleP95 = percentile(idle, 0.95);
    const floodP95 = percentile(during, 0.95);
    const ratio = round(floodP95 / idleP95, 2);
    const signIns = Object.values(outcome.signIn).reduce((a, b) => a + b, 0);
    const callbackErrors = Object.values(outcome.callback).reduce((a, b) => a + b, 0);
    const result: AuthFloodBenchResult = {
      idle: { samples: idle.length, p50Ms: round(percentile(idle, 0.5), 1), p95Ms: round(idleP95, 1) },
      flood: {
        samples: during.length,
        p50Ms: round(percentile(during, 0.5), 1),
        p95Ms: round(floodP95, 1),
        signIns,
        callbackErrors,
        floodSeconds: round(outcome.ms / 1000, 1),
        requestsPerSecond: round((signIns + callbackErrors) / (outcome.ms / 1000)),
      },
      ratio,
      auditRowsAdded: rowsAdded,
      loadAverage: loadAverage(),
      targets: { met: ratio <= 2 && during.length >= 20 },
    };
    console.log(
      `audited mutation p95: idle ${result.idle.p95Ms} ms, during the flood ${result.flood.p95Ms} ms (${ratio}×, ${during.length} samples over ${round(floodSeconds, 1)} s); flood: ${signIns} sign-ins + ${callbackErrors} callback errors at ${result.flood.requestsPerSecond}/s, ${rowsAdded} audit rows`,
    );
    console.log(JSON.stringify(result));
    return result;
  } finally {
    await database.stop();
    for (const [k, v] of [["DRIFTWATCH_CONFIG", saved.config], [OIDC_SECRET_ENV, saved.secret]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    resetEnvCache();
    resetConfigCache();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

runIfMain(import.meta.url, () => (process.argv.includes("--child") ? child() : main()));
