// Reads of the session behind a cookie, cached per process. Every page view
// and API read needs it (the proxy, the route or page, the user menu), and it
// rarely changes: an entry is dropped as soon as Postgres reports a change to
// sessions or users (sign-out, role change, disabled account — from any
// process, the CLI included; see lib/db/change-feed) and expiry is checked on
// every hit. Unknown cookies are never cached. Mutations read uncached.
import { getPrisma } from "@/lib/db";
import { changeFeed } from "@/lib/db/change-feed";
import { VersionedCache } from "@/lib/cache/versioned-cache";
import { hashToken, readSession, type Session } from "./session";

const holder = globalThis as typeof globalThis & { __driftwatchSessions?: VersionedCache<Session | null> };
const sessions = (holder.__driftwatchSessions ??= new VersionedCache<Session | null>({ maxEntries: 10_000, ttlMs: 60_000 }));

export async function readSessionCached(token: string | null | undefined, now: Date = new Date()): Promise<Session | null> {
  if (!token || token.length > 200) return null;
  const key = hashToken(token);
  const session = await sessions.get(key, changeFeed()?.generation("auth") ?? null, () => readSession(getPrisma(), token, now));
  if (!session) {
    sessions.delete(key);
    return null;
  }
  return session.expiresAt > now ? session : null;
}
