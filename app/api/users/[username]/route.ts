// Change a user's role, password or disabled state (admin). Their sessions end.
import { z } from "zod";
import { mutationRoute } from "@/lib/api/route";
import { actorOf } from "@/lib/auth/guard";
import { roleSchema } from "@/lib/auth/roles";
import { updateUser, usernameSchema } from "@/lib/auth/users";

export const dynamic = "force-dynamic";

export const PATCH = mutationRoute(
  {
    role: "admin",
    params: z.object({ username: usernameSchema }),
    body: z
      .object({ role: roleSchema.optional(), password: z.string().max(1024).optional(), disabled: z.boolean().optional(), displayName: z.string().max(200).nullable().optional() })
      .strict()
      .refine((b) => Object.keys(b).length > 0, "nothing to change"),
  },
  async ({ db, params, body, user }) => ({ user: await updateUser(db, params.username, body, actorOf(user)) }),
);
