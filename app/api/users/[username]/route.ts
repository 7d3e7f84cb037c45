// Change a user's role, password or disabled state (admin). Their sessions end.
import { mutationRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { actorOf } from "@/lib/auth/guard";
import { updateUser } from "@/lib/auth/users";

export const dynamic = "force-dynamic";

export const PATCH = mutationRoute(
  operations.updateUser,
  async ({ db, params, body, user }) => ({ user: await updateUser(db, params.username, body, actorOf(user)) }),
);
