// GET /api/live against a real Postgres: a committed write reaches an open
// stream as the names of the tables it wrote, sign-ins never do, a stream is
// refused without a session, it ends when the client goes or the database's
// notifications are lost, and a client that stops reading is sent one
// coalesced message instead of a growing queue.
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { disconnectPrisma, getPrisma } from "@/lib/db";
import { resetDatabase } from "@/lib/db/testing";
import { changeFeed, stopChangeFeed } from "@/lib/db/change-feed";
import { GET } from "@/app/api/live/route";
import { seedRepository, seedUser, viewerCookie } from "@/test/fixtures/dashboard";
import { SESSION_COOKIE, createSession } from "@/lib/auth/session";
import { openChangeStream } from "./stream";
import { until } from "@/test/support/until";
import { terminateChangeFeedConnection } from "@/test/support/change-feed";

const db = getPrisma();
const url = () => process.env.DATABASE_URL as string;

interface Message {
  event: string;
  data: unknown;
}

/** Reads server-sent events off a response body as they arrive. */
class EventReader {
  private buffer = "";
  private readonly decoder = new TextDecoder();
  readonly messages: Message[] = [];
  ended = false;
  private readonly reading: Promise<void>;

  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {
    this.reading = this.pump();
  }

  private async pump(): Promise<void> {
    for (;;) {
      const { done, value } = await this.reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) {
        this.ended = true;
        return;
      }
      this.buffer += this.decoder.decode(value, { stream: true });
      let cut: number;
      while ((cut = this.buffer.indexOf("\n\n")) >= 0) {
        const block = this.buffer.slice(0, cut);
        this.buffer = this.buffer.slice(cut + 2);
        const field = (name: string) => block.split("\n").find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2);
        this.messages.push({ event: field("event") ?? "message", data: JSON.parse(field("data") ?? "null") as unknown });
      }
    }
  }

  async next(event: string, timeoutMs = 5_000): Promise<Message> {
    let found: Message | undefined;
    await until(`a "${event}" event`, () => {
      const i = this.messages.findIndex((m) => m.event === event);
      if (i >= 0) found = this.messages.splice(i, 1)[0];
      return found !== undefined;
    }, timeoutMs);
    return found as Message;
  }

  async cancel(): Promise<void> {
    await this.reader.cancel().catch(() => undefined);
    await this.reading;
  }
}

async function openLive(cookie: string | null, signal?: AbortSignal) {
  const res = await GET(new NextRequest("http://localhost/api/live", { headers: cookie ? { cookie } : {}, signal }), { params: Promise.resolve({}) });
  return res;
}

beforeAll(async () => {
  await resetDatabase(db);
  await until("the process feed to listen", () => changeFeed()?.live === true);
});
afterAll(async () => {
  await stopChangeFeed();
  await disconnectPrisma();
});

describe("GET /api/live", () => {
  it("refuses a request without a session", async () => {
    const res = await openLive(null);
    expect(res.status).toBe(401);
  });

  it("streams the tables a committed write touched, and nothing about sign-ins", async () => {
    const res = await openLive(await viewerCookie(db));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(res.headers.get("cache-control")).toContain("no-transform");
    const events = new EventReader(res.body!.getReader());
    try {
      expect((await events.next("ready")).data).toEqual({ heartbeatMs: 15_000 });
      await seedUser(db, "live-someone", "viewer"); // a sign-in table: never announced
      await seedRepository(db, "live-repo", "https://git.example.com/acme/live.git");
      const change = await events.next("change");
      expect(change.data).toEqual({ tables: ["Repository"] });
      await new Promise((r) => setTimeout(r, 200));
      expect(events.messages.filter((m) => m.event === "change"), "the User insert was announced").toEqual([]);
    } finally {
      await events.cancel();
    }
  });

  it("ends the stream when the client goes away", async () => {
    const abort = new AbortController();
    const res = await openLive(await viewerCookie(db), abort.signal);
    const events = new EventReader(res.body!.getReader());
    await events.next("ready");
    abort.abort();
    await until("the stream to end", () => events.ended);
  });

  it("says the feed was lost and ends, and refuses new streams until it is back", async () => {
    const cookie = await viewerCookie(db);
    const res = await openLive(cookie);
    const events = new EventReader(res.body!.getReader());
    await events.next("ready");
    await terminateChangeFeedConnection(url());
    await events.next("lost");
    await until("the stream to end", () => events.ended);
    // Back within the listener's backoff; meanwhile the request waits for it or is told to poll.
    await until("the feed to listen again", () => changeFeed()?.live === true, 10_000);
    const again = await openLive(cookie);
    expect(again.status).toBe(200);
    await again.body?.cancel();
  });

  it("ends the stream when its session is signed out", async () => {
    const user = await seedUser(db, "live-leaving", "viewer");
    const s = await createSession(db, user.id);
    const res = await openLive(`${SESSION_COOKIE}=${s.token}`);
    expect(res.status).toBe(200);
    const events = new EventReader(res.body!.getReader());
    await events.next("ready");
    await db.session.deleteMany({ where: { userId: user.id } });
    await events.next("signed-out");
    await until("the stream to end", () => events.ended);
  });
});

describe("a client that stops reading", () => {
  it("is sent one message naming every table written meanwhile, not one per change", async () => {
    const feed = changeFeed()!;
    const stream = openChangeStream({ source: feed, signal: new AbortController().signal, coalesceMs: 10 });
    const reader = stream.getReader();
    const decoder = new TextDecoder();
    expect(decoder.decode((await reader.read()).value)).toContain("event: ready");
    // Nobody reads while 30 transactions commit, on three tables.
    for (let i = 0; i < 10; i++) {
      await seedRepository(db, `slow-${i}`, `https://git.example.com/acme/slow-${i}.git`);
      // Statement-level triggers notify even when no row matched.
      await db.$executeRawUnsafe(`UPDATE "Environment" SET name = name WHERE false`);
      await db.$executeRawUnsafe(`UPDATE "Alert" SET type = type WHERE false`);
    }
    await new Promise((r) => setTimeout(r, 300));
    const texts: string[] = [];
    // Whatever was queued before the queue filled, then one message with the rest: never 30.
    while (texts.length < 10) {
      const { value } = await Promise.race([reader.read(), new Promise<{ value: undefined }>((r) => setTimeout(() => r({ value: undefined }), 300))]);
      if (!value) break;
      texts.push(decoder.decode(value));
    }
    await reader.cancel();
    const changes = texts.filter((t) => t.includes("event: change"));
    expect(changes.length).toBeGreaterThan(0);
    expect(changes.length).toBeLessThanOrEqual(5);
    const named = new Set(changes.flatMap((t) => (JSON.parse(t.split("data: ")[1]!) as { tables: string[] }).tables));
    expect(named).toEqual(new Set(["Alert", "Environment", "Repository"]));
  });
});
