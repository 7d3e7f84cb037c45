// For tests: a signed-in user of a given role without going through sign-in.
import { randomBytes } from "node:crypto";
import type { PrismaClient } from "@/lib/db/generated/client";
import { CSRF_COOKIE, CSRF_HEADER, SESSION_COOKIE, createSession } from "./session";
import type { Role } from "./roles";

export interface TestSession {
  user: { id: string; username: string; role: Role };
  token: string;
  csrfToken: string;
  /** Cookie header value carrying the session (and the readable CSRF cookie). */
  cookie: string;
  /** Headers for a mutation: cookie, CSRF token, JSON body. */
  headers: Record<string, string>;
}

export async function createTestSession(db: PrismaClient, role: Role, username = `${role}-${randomBytes(3).toString("hex")}`): Promise<TestSession> {
  const user = await db.user.upsert({ where: { username }, create: { username, role }, update: { role, disabledAt: null } });
  const s = await createSession(db, user.id);
  const cookie = `${SESSION_COOKIE}=${s.token}; ${CSRF_COOKIE}=${s.csrfToken}`;
  return {
    user: { id: user.id, username: user.username, role: user.role },
    token: s.token,
    csrfToken: s.csrfToken,
    cookie,
    headers: { cookie, [CSRF_HEADER]: s.csrfToken, "content-type": "application/json" },
  };
}
