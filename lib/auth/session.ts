// Sessions: a random token in an HttpOnly cookie; only its SHA-256 is stored,
// so a database dump cannot be replayed as a sign-in. Each session carries its
// own CSRF token, which the browser must echo in `x-csrf-token` on mutations.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Prisma, PrismaClient } from "@/lib/db/generated/client";
import type { Role } from "./roles";

type Db = PrismaClient | Prisma.TransactionClient;

export const SESSION_COOKIE = "driftwatch_session";
/** Readable by the page's script (not HttpOnly): the double-submit half of CSRF protection. */
export const CSRF_COOKIE = "driftwatch_csrf";
export const CSRF_HEADER = "x-csrf-token";
export const SESSION_TTL_MS = 12 * 3_600_000;

export interface SessionUser {
  id: string;
  username: string;
  displayName: string | null;
  role: Role;
}

export interface Session {
  tokenHash: string;
  csrfToken: string;
  expiresAt: Date;
  user: SessionUser;
}

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export function randomToken(): string {
  return randomBytes(32).toString("base64url");
}

export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

export async function createSession(
  db: Db,
  userId: string,
  now: Date = new Date(),
): Promise<{ token: string; csrfToken: string; expiresAt: Date }> {
  const token = randomToken();
  const csrfToken = randomToken();
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  await db.session.deleteMany({ where: { userId, expiresAt: { lt: now } } });
  await db.session.create({ data: { tokenHash: hashToken(token), userId, csrfToken, expiresAt, createdAt: now } });
  return { token, csrfToken, expiresAt };
}

/** The session behind a cookie value, or null when unknown, expired, or its user is disabled. */
export async function readSession(db: Db, token: string | null | undefined, now: Date = new Date()): Promise<Session | null> {
  if (!token || token.length > 200) return null;
  const row = await db.session.findUnique({
    where: { tokenHash: hashToken(token) },
    include: { user: { select: { id: true, username: true, displayName: true, role: true, disabledAt: true } } },
  });
  if (!row || row.expiresAt <= now || row.user.disabledAt) return null;
  return {
    tokenHash: row.tokenHash,
    csrfToken: row.csrfToken,
    expiresAt: row.expiresAt,
    user: { id: row.user.id, username: row.user.username, displayName: row.user.displayName, role: row.user.role },
  };
}

export async function deleteSession(db: Db, token: string): Promise<void> {
  await db.session.deleteMany({ where: { tokenHash: hashToken(token) } });
}

/** Signs a user out everywhere (role change, disabled account). */
export async function deleteUserSessions(db: Db, userId: string): Promise<void> {
  await db.session.deleteMany({ where: { userId } });
}
