// The checks every API request goes through: who is signed in, may they do
// this, and did the mutation come from our own pages.
import type { NextRequest } from "next/server";
import type { Prisma, PrismaClient } from "@/lib/db/generated/client";
import type { Actor } from "@/lib/audit";
import { CSRF_HEADER, SESSION_COOKIE, readSession, safeEqual, type Session, type SessionUser } from "./session";
import { originProblem } from "./request";
import { hasRole, type Role } from "./roles";

type Db = PrismaClient | Prisma.TransactionClient;

export type AuthFailure = { status: 401 | 403; code: "unauthorized" | "forbidden"; message: string };

export async function sessionFromRequest(db: Db, req: Pick<NextRequest, "cookies">, now: Date = new Date()): Promise<Session | null> {
  return readSession(db, req.cookies.get(SESSION_COOKIE)?.value, now);
}

/** Role and CSRF checks for a mutation by an already identified session; null when allowed. */
export function mutationProblem(req: Pick<NextRequest, "headers" | "nextUrl">, session: Session, role: Role): AuthFailure | null {
  if (!hasRole(session.user.role, role)) {
    return { status: 403, code: "forbidden", message: `this needs the ${role} role; you are ${session.user.role}` };
  }
  const sent = req.headers.get(CSRF_HEADER);
  if (!sent || !safeEqual(sent, session.csrfToken)) {
    return { status: 403, code: "forbidden", message: `missing or wrong ${CSRF_HEADER} header (reload the page and try again)` };
  }
  const origin = originProblem(req);
  if (origin) return { status: 403, code: "forbidden", message: origin };
  return null;
}

export type UserActor = Extract<Actor, { type: "user" }>;

export function actorOf(user: SessionUser): UserActor {
  return { type: "user", id: user.id, name: user.username };
}
