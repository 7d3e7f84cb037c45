// Sign-in state for server components and pages (reads the request's cookies).
import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { SESSION_COOKIE, type Session, type SessionUser } from "./session";
import { readSessionCached } from "./session-cache";
import { hasRole, type Role } from "./roles";

export async function getCurrentSession(): Promise<Session | null> {
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  if (!token) return null;
  return readSessionCached(token);
}

export async function getCurrentUser(): Promise<SessionUser | null> {
  return (await getCurrentSession())?.user ?? null;
}

/**
 * For pages: the signed-in user, or a redirect to /signin that comes back
 * here afterwards. With `role`, a user below it is sent to /signin?error=forbidden.
 */
export async function requireUser(role: Role = "viewer"): Promise<SessionUser> {
  const user = await getCurrentUser();
  if (!user) {
    const path = (await headers()).get("x-driftwatch-path") ?? "/";
    redirect(`/signin?next=${encodeURIComponent(path)}`);
  }
  if (!hasRole(user.role, role)) redirect(`/signin?error=forbidden&need=${role}`);
  return user;
}
