// Health under load and under failure: probes never open database connections
// of their own, readiness is shared and cached, and no answer carries the
// database's error text.
import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { disconnectPrisma, getPrisma } from "@/lib/db";
import { resetEnvCache } from "@/lib/env";
import { GET as health } from "@/app/api/health/route";
import { GET as live } from "@/app/api/health/live/route";
import { GET as ready } from "@/app/api/health/ready/route";
import { READINESS_TTL_MS, readiness, resetHealthCache } from "@/lib/server/health";

const url = process.env.DATABASE_URL as string;
afterAll(disconnectPrisma);
afterEach(() => {
  process.env.DATABASE_URL = url;
  resetEnvCache();
  resetHealthCache();
});

/** Backend pids connected to the test database, other than the session asking. */
async function backends(): Promise<Set<number>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()",
    );
    return new Set(rows.map((r) => r.pid));
  } finally {
    await client.end();
  }
}

/** A URL on a port nobody listens on (closed a moment ago). */
async function deadDatabaseUrl(): Promise<string> {
  const net = await import("node:net");
  const port = await new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const u = new URL(url);
  u.port = String(port);
  return u.toString();
}

describe("health", () => {
  it("answers 300 concurrent readiness and health calls without opening a database connection", async () => {
    resetHealthCache();
    expect((await ready()).status).toBe(200); // the pool exists, as it does in a running server
    const before = await backends();
    resetHealthCache();

    // Sample the server's connections while the calls run: none may appear, even for a moment.
    let sampling = true;
    const seen = new Set<number>();
    const sampler = (async () => {
      while (sampling) for (const pid of await backends()) seen.add(pid);
    })();
    const responses = await Promise.all(Array.from({ length: 300 }, (_, i) => (i % 2 ? ready() : health())));
    sampling = false;
    await sampler;
    for (const pid of await backends()) seen.add(pid);

    expect(responses.map((r) => r.status)).toEqual(Array(300).fill(200));
    expect([...seen].filter((pid) => !before.has(pid))).toEqual([]);
    const bodies = await Promise.all(responses.map((r) => r.json() as Promise<{ ready: boolean; checkedAt: string }>));
    // One check served them all.
    expect(new Set(bodies.map((b) => b.checkedAt)).size).toBe(1);
  });

  it("reuses a readiness answer for at most 2 s", async () => {
    const t0 = new Date("2026-12-03T10:00:00.000Z");
    const first = await readiness(t0);
    expect(await readiness(new Date(t0.getTime() + READINESS_TTL_MS - 1))).toEqual(first);
    const later = await readiness(new Date(t0.getTime() + READINESS_TTL_MS));
    expect(later.checkedAt).toBe(new Date(t0.getTime() + READINESS_TTL_MS).toISOString());
  });

  it("stays alive without a database, and says not ready with a reason code instead of the error text", async () => {
    process.env.DATABASE_URL = await deadDatabaseUrl();
    resetEnvCache();
    resetHealthCache();
    const alive = await live();
    expect(alive.status).toBe(200);
    expect(await alive.json()).toMatchObject({ alive: true });

    for (const res of [await ready(), await health()]) {
      expect(res.status).toBe(503);
      const text = await res.text();
      expect(JSON.parse(text)).toMatchObject({ ready: false, reason: "database-unreachable" });
      // Nothing of what pg said: no address, port, errno or role name.
      expect(text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|connect|password|postgres/i);
      expect(text).not.toContain(new URL(process.env.DATABASE_URL).port);
    }
    process.env.DATABASE_URL = url;
    resetEnvCache();
    getPrisma();
  });
});
