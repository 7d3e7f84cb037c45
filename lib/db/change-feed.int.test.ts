// The change feed against a real Postgres: the triggers notify on commit and
// never on rollback, a lost connection turns caching off until it is back, and
// the caches built on it never answer with data older than a committed change.
import { NextRequest } from "next/server";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { disconnectPrisma, getPrisma } from "@/lib/db";
import { resetDatabase } from "@/lib/db/testing";
import { changeFeed, startChangeFeed, stopChangeFeed, type ChangeFeed } from "@/lib/db/change-feed";
import { readSessionCached } from "@/lib/auth/session-cache";
import { createSession, deleteSession } from "@/lib/auth/session";
import { GET as getDrift } from "@/app/api/environments/[env]/drift/route";
import type { DriftListDto } from "@/lib/api/contract";
import { seedDrift, seedEnvironment, seedRepository, seedUser, viewerCookie } from "@/test/fixtures/dashboard";
import { logger } from "@/lib/log";
import { until } from "@/test/support/until";
import { terminateChangeFeedConnection } from "@/test/support/change-feed";

const db = getPrisma();
const url = () => process.env.DATABASE_URL as string;

beforeAll(async () => {
  await resetDatabase(db);
});
afterAll(async () => {
  await stopChangeFeed();
  await disconnectPrisma();
});

describe("change feed", () => {
  let feed: ChangeFeed;
  beforeAll(async () => {
    feed = startChangeFeed(url(), logger);
    await until("the feed to listen", () => feed.generation("data") !== null);
  });
  afterAll(() => feed.stop());

  it("moves the data generation when a transaction writing a dashboard table commits, and not the auth one", async () => {
    const data = feed.generation("data") as number;
    const auth = feed.generation("auth") as number;
    await seedRepository(db, "feed-repo", "https://git.example.com/acme/feed.git");
    await until("the data generation to move", () => (feed.generation("data") as number) > data);
    expect(feed.generation("auth")).toBe(auth);
  });

  it("moves the auth generation for sessions and users", async () => {
    const auth = feed.generation("auth") as number;
    await seedUser(db, "feed-user", "viewer");
    await until("the auth generation to move", () => (feed.generation("auth") as number) > auth);
  });

  it("says nothing about a rolled-back transaction", async () => {
    const data = feed.generation("data") as number;
    await db
      .$transaction(async (tx) => {
        await tx.repository.create({ data: { name: "rolled-back", url: "https://git.example.com/acme/rb.git" } });
        throw new Error("abort");
      })
      .catch(() => undefined);
    await seedRepository(db, "after-rollback", "https://git.example.com/acme/after.git");
    await until("the later commit's notification", () => (feed.generation("data") as number) > data);
    // Exactly one move: the committed insert, not the rolled-back one.
    expect(feed.generation("data")).toBe(data + 1);
  });

  it("turns caching off while its connection is lost, and back on with a new generation", async () => {
    const before = feed.generation("data") as number;
    await terminateChangeFeedConnection(url());
    await until("the feed to notice the lost connection", () => feed.generation("data") === null);
    await until("the feed to listen again", () => feed.generation("data") !== null, 10_000);
    expect(feed.generation("data") as number).toBeGreaterThan(before);
  });
});

describe("caches on the feed", () => {
  it("forgets a session as soon as it is deleted, even by another process", async () => {
    await until("the process feed to listen", () => changeFeed()?.generation("auth") != null);
    const user = await seedUser(db, "cached-olga", "operator");
    const s = await createSession(db, user.id);
    expect((await readSessionCached(s.token))?.user.username).toBe("cached-olga");
    // A different connection (as the CLI would) signs everyone out.
    const other = new pg.Client({ connectionString: url() });
    await other.connect();
    try {
      await other.query(`DELETE FROM "Session" WHERE "userId" = $1`, [user.id]);
    } finally {
      await other.end();
    }
    await until("the signed-out session to be refused", async () => (await readSessionCached(s.token)) === null);
  });

  it("refuses a cached session once it has expired", async () => {
    const user = await seedUser(db, "cached-expiring", "viewer");
    const s = await createSession(db, user.id);
    expect(await readSessionCached(s.token)).not.toBeNull();
    expect(await readSessionCached(s.token, new Date(s.expiresAt.getTime() + 1))).toBeNull();
    await deleteSession(db, s.token);
  });

  it("shows new drift on the drift API right after the collector commits it", async () => {
    const repo = await seedRepository(db, "cache-shop", "https://git.example.com/acme/cache-shop.git");
    const env = await seedEnvironment(db, { name: "cache-prod", repositoryId: repo.id, position: 0, path: "envs/prod" });
    const cookie = await viewerCookie(db);
    const get = async () => {
      const res = await getDrift(new NextRequest("http://localhost/api/environments/cache-prod/drift", { headers: { cookie } }), {
        params: Promise.resolve({ env: "cache-prod" }),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as DriftListDto;
    };
    expect((await get()).total).toBe(0);
    expect((await get()).total).toBe(0); // now answered from the cache
    await seedDrift(db, env.id, { key: "apps/Deployment/shop/web", openedAt: new Date(), manager: "kubectl-edit" });
    await until("the new drift item on the API", async () => (await get()).total === 1, 2_000);
    expect((await get()).items[0]?.attribution.manager).toBe("kubectl-edit");
  });
});
