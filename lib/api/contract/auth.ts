// Sessions, sign-in and users.
import { z } from "zod";
import { ROLES } from "@/lib/auth/roles";
import type { SessionUser as DomainSessionUser } from "@/lib/auth/session";
import { assertSameShape, isoTime, named, object, type SameShape } from "./schema";

export const RoleSchema = z.enum(ROLES);

export const SessionUser = named("SessionUser", object({ id: z.string(), username: z.string(), displayName: z.string().nullable(), role: RoleSchema }));
export type SessionUser = z.infer<typeof SessionUser>;
assertSameShape<SameShape<SessionUser, DomainSessionUser>>();

export const SessionInfo = named(
  "SessionInfo",
  object({
    user: SessionUser.nullable(),
    csrfToken: z.string().nullable().describe("Send it in the x-csrf-token header with every mutation"),
    expiresAt: isoTime.nullable(),
    methods: object({ local: z.boolean(), oidc: z.boolean() }),
  }),
);
export type SessionInfo = z.infer<typeof SessionInfo>;

export const SignedIn = named(
  "SignedIn",
  object({ user: SessionUser, csrfToken: z.string(), next: z.string().describe("Where to go now: a path of this app") }),
  "Sets the session and CSRF cookies",
);
export type SignedIn = z.infer<typeof SignedIn>;

export const SignedOut = named("SignedOut", object({ ok: z.literal(true) }));

export const UserDto = named(
  "User",
  object({
    id: z.string(),
    username: z.string(),
    displayName: z.string().nullable(),
    email: z.string().nullable(),
    role: RoleSchema,
    local: z.boolean(),
    oidc: z.boolean(),
    createdAt: isoTime,
    disabledAt: isoTime.nullable(),
  }),
);
export type UserDto = z.infer<typeof UserDto>;

export const UserName = named("UserName", object({ username: z.string(), displayName: z.string().nullable() }), "What others than admins see of a user: enough to pick a claim's owner");

export const UserList = named("UserList", object({ users: z.union([z.array(UserDto), z.array(UserName)]).describe("Admins see every field; others only names") }));
export const UserAnswer = named("UserAnswer", object({ user: UserDto }));

export const signInBody = z.object({
  username: z.string().min(1, "enter your username").max(200),
  password: z.string().min(1, "enter your password").max(1024),
  next: z.string().max(2000).optional(),
});

export const oidcStartQuery = z.object({ next: z.string().optional().describe("Where to return afterwards") });
