// Every read route of the dashboard API against a real Postgres seeded the
// way the collector writes it: the answers a user relies on, the 400 for bad
// input and the 404 for what does not exist.
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { disconnectPrisma, getPrisma } from "@/lib/db";
import { resetDatabase } from "@/lib/db/testing";
import type {
  CommitLookupDto,
  CompareDto,
  DriftListDto,
  EnvironmentDetailDto,
  EnvironmentListDto,
  LineageDto,
  MetricsDto,
  ObjectDetailDto,
  RunDto,
  TimelineDto,
} from "@/lib/api/contract";
import { GET as listEnvironments } from "@/app/api/environments/route";
import { GET as getEnvironment } from "@/app/api/environments/[env]/route";
import { GET as getDrift } from "@/app/api/environments/[env]/drift/route";
import { GET as getObject } from "@/app/api/environments/[env]/objects/[group]/[kind]/[namespace]/[name]/route";
import { GET as getCommit } from "@/app/api/commits/[sha]/route";
import { GET as getLineage } from "@/app/api/lineage/route";
import { GET as getTimeline } from "@/app/api/timeline/route";
import { GET as getCompare } from "@/app/api/compare/route";
import { GET as getMetrics } from "@/app/api/delivery-metrics/route";
import { GET as getRun } from "@/app/api/runs/[id]/route";
import { GET as getOpenApi } from "@/app/api/openapi.json/route";
import { seedManyDrift, seedShop, sha, viewerCookie, type ShopScenario } from "@/test/fixtures/dashboard";

const db = getPrisma();
let shop: ShopScenario;
let cookie = "";

type Handler = (req: NextRequest, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

async function call(handler: Handler, url: string, params: Record<string, string> = {}, signedIn = true): Promise<{ status: number; body: unknown; text: string; headers: Headers }> {
  const req = new NextRequest(new URL(url || "/api/x", "http://localhost"), { headers: signedIn ? { cookie } : {} });
  const res = await handler(req, { params: Promise.resolve(params) });
  const text = await res.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  return { status: res.status, body, text, headers: res.headers };
}

const message = (body: unknown) => (body as { error: { message: string } }).error.message;

beforeAll(async () => {
  await resetDatabase(db);
  shop = await seedShop(db);
  cookie = await viewerCookie(db);
});
afterAll(disconnectPrisma);

describe("sessions", () => {
  it("every read route answers 401 without one", async () => {
    for (const [handler, url, params] of [
      [listEnvironments, "/api/environments", {}],
      [getDrift, "/api/environments/production/drift", { env: "production" }],
      [getCommit, "/api/commits/abcd", { sha: "abcd" }],
      [getTimeline, "/api/timeline", {}],
    ] as const) {
      expect((await call(handler, url, params, false)).status).toBe(401);
    }
  });
});

describe("GET /api/environments", () => {
  it("lists environments in promotion order with the status each deserves", async () => {
    const r = await call(listEnvironments, "/api/environments");
    expect(r.status).toBe(200);
    const list = r.body as EnvironmentListDto;
    expect(list.environments.map((e) => [e.name, e.status])).toEqual([
      ["test", "Paused"],
      ["staging", "Paused"],
      ["production", "Stale"],
    ]);
    const prod = list.environments[2]!;
    expect(prod.flags.map((f) => f.status)).toEqual(["Stale", "Drifted"]);
    expect(prod.drift).toEqual({ total: 5, Modified: 3, Missing: 1, Extra: 1, unowned: 4 });
    expect(prod.approved?.shortSha).toBe(shop.commits.apiProd14.slice(0, 7));
    expect(prod.applied?.message).toBe("Promote api 1.3 to production");
    expect(prod.behind?.since).toBe(new Date(shop.now.getTime() - 2.5 * 3_600_000).toISOString());
    expect(prod.controller?.failure?.reason).toBe("AuthenticationFailed");
    expect(prod.alerts.map((a) => a.type)).toContain("environment_stale");
    const staging = list.environments[1]!;
    expect(staging.pauses[0]).toMatchObject({ origin: "detected", unattributed: true, detectedManager: "kubectl-patch" });
    // test runs a later commit (the branch head) that contains its approved one: not behind.
    expect(list.environments[0]!.behind).toBeNull();
    expect(list.environments[0]!.pauses[0]).toMatchObject({ reason: "Load test until 16:00, do not reconcile", createdBy: { username: "bob" } });
  });
});

describe("GET /api/environments/{env}", () => {
  it("adds rollback guidance with the exact revert range, rollout health and ignored counts", async () => {
    const r = await call(getEnvironment, "/api/environments/production", { env: "production" });
    expect(r.status).toBe(200);
    const env = r.body as EnvironmentDetailDto;
    expect(env.rollback.current?.sha).toBe(shop.commits.apiProd14);
    expect(env.rollback.targets[0]).toMatchObject({
      revision: { sha: shop.commits.init },
      revertCommand: `git revert --no-edit ${shop.commits.init}..${shop.commits.apiProd14}`,
      commits: 6,
    });
    expect(env.rollback.targets[0]!.touchesOtherPaths).toBeGreaterThan(0);
    expect(env.rollout.find((x) => x.name === "api")?.rolledOut).toBe(false);
    // The seed stores rollout as releases before summariseRollout did, a bare list: read as its summary.
    expect(env.rolloutCounts).toEqual({ total: 2, rollingOut: 1 });
    expect(env.ignored.total).toBe(2);
    expect(env.facets.kinds).toEqual(["ConfigMap", "Deployment", "Secret", "Service"]);
    expect(env.lastRun?.progress?.objectsRead).toBe(15);
  });
  it("400 for a malformed name, 404 for an unknown one", async () => {
    const bad = await call(getEnvironment, "/api/environments/Prod!", { env: "Prod!" });
    expect(bad.status).toBe(400);
    expect(message(bad.body)).toMatch(/env: an environment name/);
    const unknown = await call(getEnvironment, "/api/environments/qa", { env: "qa" });
    expect(unknown.status).toBe(404);
    expect(message(unknown.body)).toBe('environment "qa" not found');
  });
});

describe("GET /api/environments/{env}/drift", () => {
  const drift = (query: string, env = "production") => call(getDrift, `/api/environments/${env}/drift?${query}`, { env });

  it("lists open drift with attribution, owner and changed fields; Secret values never appear", async () => {
    const r = await drift("");
    expect(r.status).toBe(200);
    const list = r.body as DriftListDto;
    expect(list.total).toBe(5);
    const api = list.items.find((i) => i.name === "api")!;
    expect(api.attribution.manager).toBe("kubectl");
    expect(api.claim?.owner.username).toBe("alice");
    expect(api.changes[0]?.display).toBe("spec.replicas");
    expect(r.text).not.toContain("sha256-hmac:");
    const secret = list.items.find((i) => i.kind === "Secret")!;
    expect(secret.changes[0]).toMatchObject({ desired: "(hidden)", live: "(hidden)" });
  });

  it.each([
    ["type=Extra", ["debug-flags"]],
    ["owner=owned", ["api"]],
    ["owner=unowned&kind=Deployment", ["worker"]],
    ["actor=human&type=Modified", ["api", "db-credentials", "worker"]],
    ["q=LOG_LEVEL", ["worker"]],
    ["q=kubectl-create", ["debug-flags"]],
    ["status=resolved", ["settings"]],
    ["namespace=kube-system", []],
  ])("filters: %s", async (query, names) => {
    const r = await drift(query);
    expect(r.status).toBe(200);
    expect((r.body as DriftListDto).items.map((i) => i.name).sort()).toEqual(names);
  });

  it.each([
    ["type=Broken", /type/],
    ["sort=color", /sort/],
    ["limit=0", /limit/],
    ["limit=abc", /limit/],
    ["cursor=garbage", /cursor/],
  ])("400 with a message for %s", async (query, pattern) => {
    const r = await drift(query);
    expect(r.status).toBe(400);
    expect(message(r.body)).toMatch(pattern);
  });

  it("404 for an unknown environment", async () => {
    expect((await drift("", "qa")).status).toBe(404);
  });

  it("pages through 10,000 items with keyset cursors in every sort order, no item twice or lost", async () => {
    const bulk = await db.environment.create({ data: { name: "bulk", position: 9, branch: "main", path: ".", spec: {} } });
    const ids = await seedManyDrift(db, bulk.id, 10_000);
    for (const [sort, dir] of [["key", "asc"], ["openedAt", "desc"], ["manager", "asc"], ["attributionTime", "desc"]] as const) {
      const seen = new Set<string>();
      let cursor: string | null = null;
      let pages = 0;
      let previous: string | null = null;
      do {
        const r = await drift(`sort=${sort}&dir=${dir}&limit=500${cursor ? `&cursor=${cursor}` : ""}`, "bulk");
        expect(r.status).toBe(200);
        const page = r.body as DriftListDto;
        expect(page.total).toBe(cursor ? null : 10_000);
        for (const item of page.items) {
          expect(seen.has(item.id)).toBe(false);
          seen.add(item.id);
        }
        if (sort === "key") {
          const first = page.items[0]?.key ?? null;
          if (previous !== null && first !== null) expect(first > previous).toBe(true);
          previous = page.items[page.items.length - 1]?.key ?? previous;
        }
        cursor = page.nextCursor;
        pages++;
      } while (cursor && pages < 30);
      expect(seen.size, `${sort} ${dir}`).toBe(ids.length);
      expect(pages).toBe(20);
    }
    const other = ((await drift("sort=openedAt&limit=1", "bulk")).body as DriftListDto).nextCursor;
    const stale = await drift(`sort=key&cursor=${other}`, "bulk");
    expect(stale.status).toBe(400);
    expect(message(stale.body)).toMatch(/issued for sort=openedAt/);
  });
});

describe("GET /api/environments/{env}/objects/{group}/{kind}/{namespace}/{name}", () => {
  it("shows desired vs live normalised, the change highlighted with its manager, and the Git file", async () => {
    const r = await call(getObject, "/api/environments/production/objects/apps/Deployment/shop/api", { env: "production", group: "apps", kind: "Deployment", namespace: "shop", name: "api" });
    expect(r.status).toBe(200);
    const o = r.body as ObjectDetailDto;
    expect(o.desired?.sourcePath).toBe("deploy/production/api.yaml");
    expect(o.desired?.revision?.sha).toBe(shop.commits.apiProd13);
    expect(o.live?.yaml).not.toMatch(/terminationMessagePath|uid:|progressDeadlineSeconds/);
    const changed = o.rows.filter((x) => x.kind !== "same");
    expect(changed).toHaveLength(1);
    expect(changed[0]).toMatchObject({ left: { text: "  replicas: 2" }, right: { text: "  replicas: 5" }, change: 0 });
    expect(o.changes[0]?.attribution.manager).toBe("kubectl");
    expect(o.drift?.claim?.reason).toContain("INC-4711");
  });
  it("a Secret's values are hidden on both sides", async () => {
    const r = await call(getObject, "/api/environments/production/objects/_/Secret/shop/db-credentials", { env: "production", group: "_", kind: "Secret", namespace: "shop", name: "db-credentials" });
    expect(r.status).toBe(200);
    expect(r.text).not.toContain("sha256-hmac:");
    const o = r.body as ObjectDetailDto;
    expect(o.secret).toBe(true);
    expect(o.rows.find((x) => x.right?.text.includes("password"))).toMatchObject({ kind: "changed", right: { text: "  password: (hidden)" } });
  });
  it("history includes resolved drift", async () => {
    const r = await call(getObject, "", { env: "production", group: "_", kind: "ConfigMap", namespace: "shop", name: "settings" });
    const o = r.body as ObjectDetailDto;
    expect(o.drift).toBeNull();
    expect(o.history.map((h) => h.resolution)).toEqual(["reverted"]);
  });
  it("400 for a malformed kind, 404 for an unknown object", async () => {
    const bad = await call(getObject, "", { env: "production", group: "apps", kind: "Deploy-ment", namespace: "shop", name: "api" });
    expect(bad.status).toBe(400);
    expect(message(bad.body)).toMatch(/kind/);
    const missing = await call(getObject, "", { env: "production", group: "apps", kind: "Deployment", namespace: "shop", name: "nope" });
    expect(missing.status).toBe(404);
  });
});

describe("GET /api/commits/{sha}", () => {
  it("answers per environment, ancestry-aware, with the reason a commit is pending", async () => {
    const r = await call(getCommit, "", { sha: shop.commits.apiTest14.slice(0, 8) });
    expect(r.status).toBe(200);
    const c = r.body as CommitLookupDto;
    if (c.match !== "exact") throw new Error("expected an exact match");
    const byEnv = Object.fromEntries(c.commit.environments.map((b) => [b.environment, b]));
    expect(byEnv.test).toMatchObject({ state: "live", viaDescendant: true, through: { sha: shop.commits.apiProd14 } });
    expect(byEnv.test!.since).toBe(new Date(shop.now.getTime() - 5 * 3_600_000).toISOString());
    expect(byEnv.staging).toMatchObject({ state: "live", viaDescendant: true });
    expect(byEnv.production).toMatchObject({ state: "pending" });
    expect(byEnv.production!.reason).toMatch(/^source AuthenticationFailed for 2h/);
    expect(c.commit.hops.map((h) => [h.from, h.to, h.durationMs])).toEqual([
      [null, "test", 0],
      ["test", "staging", 2.1 * 3_600_000],
      ["staging", "production", null],
    ]);
  });
  it("an ambiguous short sha lists the candidates", async () => {
    // Two commits sharing a prefix: find any 4-hex prefix shared by two seeded shas, else add one.
    const other = shop.commits.init.slice(0, 4) + "f".repeat(36);
    await db.revision.create({ data: { repositoryId: shop.repositoryId, sha: other, parents: [], authorName: "x", authorEmail: "x@example.com", authoredAt: shop.now, committerName: "x", committerEmail: "x@example.com", committedAt: shop.now, message: "lookalike", changedPaths: [] } });
    const r = await call(getCommit, "", { sha: shop.commits.init.slice(0, 4).toUpperCase() });
    expect(r.status).toBe(200);
    const c = r.body as CommitLookupDto;
    expect(c.match).toBe("ambiguous");
    if (c.match === "ambiguous") expect(c.candidates.map((x) => x.sha).sort()).toEqual([shop.commits.init, other].sort());
  });
  it("400 for something that is not a sha, 404 for an unknown one", async () => {
    expect((await call(getCommit, "", { sha: "xyz" })).status).toBe(400);
    const missing = await call(getCommit, "", { sha: sha("never") });
    expect(missing.status).toBe(404);
    expect(message(missing.body)).toMatch(/^commit .* not found$/);
  });
});

describe("GET /api/lineage", () => {
  it("lists the branch's commits newest first with a badge per environment", async () => {
    const r = await call(getLineage, "/api/lineage");
    expect(r.status).toBe(200);
    const l = r.body as LineageDto;
    const main = l.repositories[0]!.branches[0]!;
    expect(main.commits[0]?.sha).toBe(shop.commits.apiProd14);
    const prodBadge = main.commits[0]!.badges.find((b) => b.environment === "production");
    expect(prodBadge?.state).toBe("pending");
    expect((await call(getLineage, "/api/lineage?limit=-1")).status).toBe(400);
  });
});

describe("GET /api/timeline", () => {
  const from = () => new Date(shop.now.getTime() - 3 * 86_400_000).toISOString();

  it("merges commits and audit events, filtered by environment and type", async () => {
    const r = await call(getTimeline, `/api/timeline?environment=production&from=${from()}`);
    expect(r.status).toBe(200);
    const t = r.body as TimelineDto;
    expect(t.events.every((e) => e.environments.includes("production"))).toBe(true);
    expect(t.events.map((e) => e.action)).toEqual(expect.arrayContaining(["commit", "drift.opened", "drift.resolved", "revision.applied", "alert.opened", "claim.created"]));
    const times = t.events.map((e) => e.at);
    expect([...times].sort()).toEqual(times);
    const drift = await call(getTimeline, `/api/timeline?type=drift&from=${from()}`);
    expect((drift.body as TimelineDto).events.every((e) => e.type === "drift")).toBe(true);
  });

  it("exports CSV, JSON and a Markdown incident write-up", async () => {
    const csv = await call(getTimeline, `/api/timeline?environment=production&from=${from()}&format=csv`);
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(csv.headers.get("content-disposition")).toMatch(/attachment; filename="driftwatch-timeline-production-.*\.csv"/);
    expect(csv.text.split("\r\n")[0]).toBe("time_utc,type,action,environment,actor,title,detail,reason,sha,link");
    const md = await call(getTimeline, `/api/timeline?environment=production&from=${from()}&format=md`);
    expect(md.text).toContain("# Incident timeline: production");
    expect(md.text).toContain("Drift opened: Deployment shop/api (Modified)");
    const json = await call(getTimeline, `/api/timeline?from=${from()}&format=json`);
    expect((json.body as { events: unknown[] }).events.length).toBeGreaterThan(5);
  });

  it.each([["type=nonsense"], ["from=yesterday"], ["from=2025-03-10T00:00:00Z&to=2025-03-09T00:00:00Z"], ["format=xlsx"]])("400 for %s", async (q) => {
    expect((await call(getTimeline, `/api/timeline?${q}`)).status).toBe(400);
  });
  it("404 for an unknown environment", async () => {
    expect((await call(getTimeline, "/api/timeline?environment=qa")).status).toBe(404);
  });
});

describe("GET /api/compare", () => {
  it("compares Git vs Git field by field, Secret values hidden", async () => {
    const r = await call(getCompare, "/api/compare?from=staging&to=production&mode=desired");
    expect(r.status).toBe(200);
    const c = r.body as CompareDto;
    expect(r.text).not.toContain("sha256-hmac:");
    expect(c).toMatchObject({ same: 2, differs: 2, onlyFrom: 0, onlyTo: 1 });
    const api = c.objects.find((o) => o.name === "api")!;
    expect(api.fields).toEqual([{ path: "spec.template.spec.containers[name=api].image", from: "shop/api:1.4", to: "shop/api:1.3", kind: "changed" }]);
    expect(c.objects.find((o) => o.kind === "Secret")!.fields).toEqual([{ path: "data.password", from: "(hidden)", to: "(hidden)", kind: "changed" }]);
    expect(c.objects.find((o) => o.state === "only-to")?.name).toBe("metrics");
  });
  it("compares live vs live, ignoring server-set fields", async () => {
    const r = await call(getCompare, "/api/compare?from=staging&to=production");
    const c = r.body as CompareDto;
    expect(c.mode).toBe("live");
    const worker = c.objects.find((o) => o.name === "worker")!;
    expect(worker.fields.map((f) => f.path)).toEqual(["spec.template.spec.containers[name=worker].env[name=LOG_LEVEL].value"]);
    const api = c.objects.find((o) => o.name === "api")!;
    expect(api.fields.map((f) => f.path).sort()).toEqual(["spec.replicas", "spec.template.spec.containers[name=api].image"]);
    expect(c.objects.filter((o) => o.state === "only-to").map((o) => o.name)).toEqual(["debug-flags"]);
  });
  it("400 without both environments or with the same one twice, 404 for an unknown one", async () => {
    expect((await call(getCompare, "/api/compare?from=staging")).status).toBe(400);
    const same = await call(getCompare, "/api/compare?from=staging&to=staging");
    expect(same.status).toBe(400);
    expect(message(same.body)).toMatch(/same environment/);
    expect((await call(getCompare, "/api/compare?from=staging&to=qa")).status).toBe(404);
  });
});

describe("GET /api/delivery-metrics", () => {
  it("computes lead time per hop, drift lifetime, manual edits and pauses", async () => {
    const r = await call(getMetrics, "/api/delivery-metrics?days=30");
    expect(r.status).toBe(200);
    const m = r.body as MetricsDto;
    expect(m.leadTime.find((h) => h.from === null && h.to === "test")?.samples).toBeGreaterThan(0);
    expect(m.driftLifetime.resolved).toBeGreaterThanOrEqual(2);
    expect(m.manualEdits.managers.map((x) => x.manager)).toEqual(expect.arrayContaining(["kubectl", "kubectl-edit"]));
    expect(m.pauses.map((p) => p.environment).sort()).toEqual(["production", "staging", "test"]);
    expect(m.staleTime.find((s) => s.environment === "production")!.totalMs).toBeGreaterThan(2 * 3_600_000);
    expect((await call(getMetrics, "/api/delivery-metrics?days=0")).status).toBe(400);
  });
});

describe("GET /api/runs/{id}", () => {
  it("returns a run's progress, 400 for a bad id, 404 for an unknown one", async () => {
    const run = await db.collectionRun.findFirstOrThrow({ where: { environmentId: shop.env.production } });
    const r = await call(getRun, "", { id: String(run.id) });
    expect(r.status).toBe(200);
    expect(r.body as RunDto).toMatchObject({ environment: "production", status: "succeeded", progress: { phase: "done", objectsRead: 15 } });
    expect((await call(getRun, "", { id: "abc" })).status).toBe(400);
    expect((await call(getRun, "", { id: "999999" })).status).toBe(404);
  });
});

describe("GET /api/openapi.json", () => {
  it("serves the OpenAPI document", async () => {
    const r = await call(getOpenApi, "/api/openapi.json");
    expect(r.status).toBe(200);
    expect((r.body as { openapi: string }).openapi).toBe("3.1.0");
  });
});
