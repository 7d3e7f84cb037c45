// Users: the list (admins see everything; others only names, to pick a claim's
// owner) and creating a local account (admin).
import { jsonRoute, mutationRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { getPrisma } from "@/lib/db";
import { actorOf } from "@/lib/auth/guard";
import { hasRole } from "@/lib/auth/roles";
import { createLocalUser, toUserDto } from "@/lib/auth/users";

export const dynamic = "force-dynamic";

export const GET = jsonRoute(operations.listUsers, async ({ user }) => {
  const rows = await getPrisma().user.findMany({ orderBy: { username: "asc" } });
  if (user && hasRole(user.role, "admin")) return { users: rows.map(toUserDto) };
  return { users: rows.filter((u) => !u.disabledAt).map((u) => ({ username: u.username, displayName: u.displayName })) };
});

export const POST = mutationRoute(
  operations.createUser,
  async ({ db, body, user }) => ({ user: await createLocalUser(db, body, actorOf(user)) }),
);
