// The API fuzzed from its own contract: schemathesis reads /api/openapi.json
// from a running demo and sends every documented operation generated input,
// valid and invalid, signed in as each role. Every answer must be a documented
// status (never a 5xx) with a body that matches the documented schema.
//
// The demo's clusters are the in-repo Kubernetes API imitations: pauses and
// refreshes the fuzzer makes never reach a real cluster.
//
//   npx vitest run --project contract                    # starts its own demo
//   CONTRACT_BASE_URL=http://127.0.0.1:3108 npx vitest run --project contract   # against a running demo
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiDocument } from "@/lib/api/contract/openapi";
import { DEMO_ACCOUNTS } from "@/demo/users";
import { CSRF_HEADER, SESSION_COOKIE } from "@/lib/auth/session";
import type { Role } from "@/lib/auth/roles";
import { startDemoServer, stopDemoServer, type DemoServer } from "@/test/support/demo-server";
import { ensureSchemathesis, runSchemathesis, type SchemathesisReport } from "@/test/support/schemathesis";

// Bounded and repeatable: the same seed generates the same cases on every run.
const MAX_EXAMPLES = Number(process.env.CONTRACT_MAX_EXAMPLES ?? 10);
const SEED = 20261203;
const CHECKS = ["not_a_server_error", "status_code_conformance", "response_schema_conformance", "content_type_conformance"];

/**
 * Each role's second, last run: operations that end the fuzzing session
 * (sign-out) or may take its role away (an admin changing a user, possibly
 * itself), so they cannot cut the first run short; and the document itself,
 * which schemathesis leaves out unless it is named.
 */
const LAST = ["/api/auth/signout", "/api/users/{username}", "/api/openapi.json"];

/**
 * Left out of both runs: a server-sent-events stream never ends, so every
 * case would time out. Its contract is checked in test/integration/api-contract.test.ts
 * and lib/live/live.int.test.ts, its behaviour in e2e/live-update.spec.ts.
 */
const STREAMS = ["/api/live"];

const METHODS = new Set(["get", "put", "post", "patch", "delete", "head", "options"]);
const documented = Object.entries(openApiDocument().paths as Record<string, Record<string, unknown>>).flatMap(([p, item]) =>
  Object.keys(item)
    .filter((m) => METHODS.has(m))
    .map((m) => `${m.toUpperCase()} ${p}`),
);

interface Session {
  cookie: string;
  csrfToken: string;
}

let server: DemoServer;
let bin = "";
let workDir = "";
const sessions = new Map<Role, Session>();
const figures: Array<{ role: Role; operations: number; cases: number; failures: number; seconds: number }> = [];

async function signIn(baseURL: string, username: string, password: string): Promise<Session> {
  const res = await fetch(`${baseURL}/api/auth/signin`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username, password }),
  });
  if (!res.ok) throw new Error(`signing in as ${username}: ${res.status} ${await res.text()}`);
  const { csrfToken } = (await res.json()) as { csrfToken: string };
  const token = res.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`));
  if (!token) throw new Error(`signing in as ${username} set no session cookie`);
  return { cookie: token.split(";")[0]!, csrfToken };
}

function failureText(run: { report: SchemathesisReport; output: string }): string {
  const start = run.output.indexOf("FAILURES");
  return run.output.slice(start >= 0 ? start : -6000, (start >= 0 ? start : 0) + 12_000);
}

beforeAll(async () => {
  bin = ensureSchemathesis((m) => console.log(m));
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-contract-"));
  const external = process.env.CONTRACT_BASE_URL;
  server = external
    ? { pid: 0, dataDir: "", logFile: "", baseURL: external.replace(/\/$/, "") }
    : await startDemoServer({ port: Number(process.env.CONTRACT_PORT ?? 3109) });
  // Every role signs in before any fuzzing: the fuzzer's own failed sign-ins
  // throttle this address, as they should.
  for (const account of DEMO_ACCOUNTS) sessions.set(account.role, await signIn(server.baseURL, account.username, account.password));
}, 600_000);

afterAll(async () => {
  if (figures.length) {
    const total = (k: "cases" | "failures") => figures.reduce((n, f) => n + f[k], 0);
    console.log(
      [
        `schemathesis against ${documented.length} documented operations, ${MAX_EXAMPLES} examples per operation, seed ${SEED}:`,
        ...figures.map((f) => `  ${f.role.padEnd(8)} ${f.operations} operations, ${f.cases} test cases, ${f.failures} failures, ${f.seconds.toFixed(0)} s`),
        `  total    ${total("cases")} test cases, ${total("failures")} failures`,
      ].join("\n"),
    );
  }
  if (server) await stopDemoServer(server);
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
}, 60_000);

describe("the API against its OpenAPI document (schemathesis)", () => {
  it("documents a known number of operations", () => {
    // A guard against a document that lost its paths: the fuzzing below would then pass vacuously.
    expect(documented.length).toBeGreaterThanOrEqual(38);
  });

  for (const role of ["viewer", "operator", "admin"] as const) {
    it(`signed in as ${role}: every operation exercised, no 5xx, every answer as documented`, async () => {
      const session = sessions.get(role)!;
      const common = [
        "--header", `Cookie: ${session.cookie}`,
        "--header", `${CSRF_HEADER}: ${session.csrfToken}`,
        "--checks", CHECKS.join(","),
        "--max-examples", String(MAX_EXAMPLES),
        "--seed", String(SEED),
        "--workers", "1",
        "--request-timeout", "30",
        "--suppress-health-check", "all",
      ];
      const schemaUrl = `${server.baseURL}/api/openapi.json`;
      const started = Date.now();
      const first = await runSchemathesis(bin, schemaUrl, [...common, ...[...LAST, ...STREAMS].flatMap((p) => ["--exclude-path", p])], workDir);
      const last = await runSchemathesis(bin, schemaUrl, [...common, ...LAST.flatMap((p) => ["--include-path", p])], workDir);
      const runs = [first, last];
      const tested = runs.reduce((n, r) => n + r.report.operations.tested, 0);
      const failures = runs.flatMap((r) => r.report.failures.map((f) => `${f.code} ${f.title}: ${f.operations.join(", ")}`));
      const errors = runs.flatMap((r) => r.report.errors.map((e) => JSON.stringify(e).slice(0, 500)));
      figures.push({
        role,
        operations: tested,
        cases: runs.reduce((n, r) => n + r.report.test_cases.generated, 0),
        failures: runs.reduce((n, r) => n + r.report.test_cases.unique_failures, 0),
        seconds: (Date.now() - started) / 1000,
      });

      expect(tested, "operations tested across both runs").toBe(documented.length - STREAMS.length);
      expect(errors, "schemathesis errors (cases it could not run)").toEqual([]);
      expect(failures, runs.map(failureText).join("\n")).toEqual([]);
      for (const r of runs) expect(r.report.exit_code, failureText(r)).toBe(0);
    });
  }
});
