// Sign-out: any signed-in user, with the CSRF token like every mutation.
import { NextResponse } from "next/server";
import { mutationRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { appendAudit } from "@/lib/audit";
import { actorOf } from "@/lib/auth/guard";
import { clearSessionCookies } from "@/lib/auth/request";
import { SESSION_COOKIE, deleteSession } from "@/lib/auth/session";

export const dynamic = "force-dynamic";

export const POST = mutationRoute(operations.signOut, async ({ req, db, user }) => {
  const token = req.cookies.get(SESSION_COOKIE)?.value;
  if (token) await deleteSession(db, token);
  await appendAudit(db, { actor: actorOf(user), action: "auth.signout", targetType: "user", targetId: user.username });
  const res = NextResponse.json({ ok: true }, { headers: { "cache-control": "no-store" } });
  clearSessionCookies(res, req);
  return res;
});
