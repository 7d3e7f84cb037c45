// Prisma loads the relations of one `include` with several queries at once;
// inside an interactive transaction they share one connection. pg queues the
// extra ones and prints a DeprecationWarning (an error from pg 9 on), which
// `npm run demo` showed while playing its history (claims and their owner,
// creator and items). The client from getPrisma() sends them in turn.
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { disconnectPrisma, getPrisma } from "@/lib/db";
import { PrismaClient } from "@/lib/db/generated/client";
import { resetDatabase } from "@/lib/db/testing";
import { seedUser } from "@/test/fixtures/dashboard";

const db = getPrisma();

/** Every query sent on a pg connection that was still busy with another, as pg would queue it. */
const queued: string[] = [];
const query = pg.Client.prototype.query;
beforeAll(async () => {
  await resetDatabase(db);
  await seedUser(db, "olivia");
  pg.Client.prototype.query = function (this: pg.Client & { _queryQueue: unknown[]; _activeQuery: unknown }, ...args: unknown[]) {
    if (this._queryQueue.length > 0 || this._activeQuery) {
      const first = args[0] as string | { text?: string };
      queued.push(typeof first === "string" ? first : (first.text ?? ""));
    }
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
});
afterEach(() => {
  queued.length = 0;
});
afterAll(async () => {
  pg.Client.prototype.query = query;
  await disconnectPrisma();
});

const withRelations = (c: Pick<PrismaClient, "user">) => c.user.findMany({ include: { claimsOwned: true, claimsCreated: true, pausesOwned: true, pausesCreated: true } });

describe("transactions", () => {
  it("send one query at a time, even for an include Prisma loads with several queries", async () => {
    const users = await db.$transaction((tx) => withRelations(tx));
    expect(users.map((u) => u.username)).toEqual(["olivia"]);
    expect(queued).toEqual([]);
  });

  it("(the plain adapter queues them on the transaction's connection: what the test above would catch)", async () => {
    const plain = new PrismaClient({ adapter: new PrismaPg({ connectionString: process.env.DATABASE_URL as string }) });
    (process as { noDeprecation?: boolean }).noDeprecation = true; // the warning this provokes on purpose is not news in the test output
    try {
      await plain.$transaction((tx) => withRelations(tx));
      expect(queued.length).toBeGreaterThan(0);
    } finally {
      (process as { noDeprecation?: boolean }).noDeprecation = false;
      await plain.$disconnect();
    }
  });

  it("still roll back as a whole when one of their queries fails", async () => {
    await expect(
      db.$transaction(async (tx) => {
        await tx.user.create({ data: { username: "rolled-back" } });
        await tx.user.create({ data: { username: "olivia" } }); // unique violation
      }),
    ).rejects.toThrow();
    expect(await db.user.count({ where: { username: "rolled-back" } })).toBe(0);
  });
});
