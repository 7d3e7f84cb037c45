// Users: the list (admins see everything; others only names, to pick a claim's
// owner) and creating a local account (admin).
import { z } from "zod";
import { jsonRoute, mutationRoute } from "@/lib/api/route";
import { getPrisma } from "@/lib/db";
import { actorOf } from "@/lib/auth/guard";
import { hasRole, roleSchema } from "@/lib/auth/roles";
import { createLocalUser, toUserDto, usernameSchema } from "@/lib/auth/users";

export const dynamic = "force-dynamic";

export const GET = jsonRoute({}, async ({ user }) => {
  const rows = await getPrisma().user.findMany({ orderBy: { username: "asc" } });
  if (user && hasRole(user.role, "admin")) return { users: rows.map(toUserDto) };
  return { users: rows.filter((u) => !u.disabledAt).map((u) => ({ username: u.username, displayName: u.displayName })) };
});

export const POST = mutationRoute(
  {
    role: "admin",
    status: 201,
    body: z.object({ username: usernameSchema, role: roleSchema, password: z.string().max(1024), displayName: z.string().max(200).optional() }).strict(),
  },
  async ({ db, body, user }) => ({ user: await createLocalUser(db, body, actorOf(user)) }),
);
