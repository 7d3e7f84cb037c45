// Local accounts: creation (the `npm run user` script, the admin API and the
// first start) and password sign-in.
import { z } from "zod";
import { Prisma, type PrismaClient } from "@/lib/db/generated/client";
import { appendAudit, type Actor } from "@/lib/audit";
import { ApiError } from "@/lib/api/errors";
import { generatePassword, hashPassword, passwordProblem, verifyPassword } from "./password";
import { createSession, deleteUserSessions, type SessionUser } from "./session";
import { signInLimiter, type SignInLimiter } from "./rate-limit";
import { failedAttemptAudit, type FailedAttemptAudit } from "./failed-attempts";
import type { Role } from "./roles";
import type { UserDto } from "@/lib/api/contract/auth";

type Db = PrismaClient;

export const usernameSchema = z
  .string()
  .min(1, "a username is required")
  .max(100)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._@+-]*$/, "letters, digits and . _ @ + - (starting with a letter or digit)");


export type { UserDto } from "@/lib/api/contract/auth";

type UserRow = Awaited<ReturnType<PrismaClient["user"]["findFirstOrThrow"]>>;

export function toUserDto(u: UserRow): UserDto {
  return {
    id: u.id,
    username: u.username,
    displayName: u.displayName,
    email: u.email,
    role: u.role,
    local: u.passwordHash !== null,
    oidc: u.oidcSubject !== null,
    createdAt: u.createdAt.toISOString(),
    disabledAt: u.disabledAt?.toISOString() ?? null,
  };
}

export async function createLocalUser(
  db: Db,
  input: { username: string; role: Role; password: string; displayName?: string | null },
  actor: Actor,
): Promise<UserDto> {
  const username = usernameSchema.parse(input.username);
  const problem = passwordProblem(input.password);
  if (problem) throw new ApiError("bad_request", problem);
  const passwordHash = await hashPassword(input.password);
  try {
    return await db.$transaction(async (tx) => {
      const user = await tx.user.create({ data: { username, role: input.role, passwordHash, displayName: input.displayName ?? null } });
      await appendAudit(tx, {
        actor,
        action: "user.created",
        targetType: "user",
        targetId: user.username,
        after: { role: user.role, local: true },
      });
      return toUserDto(user);
    });
  } catch (e) {
    if (e instanceof Prisma.PrismaClientKnownRequestError && e.code === "P2002") {
      throw new ApiError("conflict", `a user named "${username}" already exists`);
    }
    throw e;
  }
}

export async function updateUser(
  db: Db,
  username: string,
  change: { role?: Role; password?: string; disabled?: boolean; displayName?: string | null },
  actor: Actor,
): Promise<UserDto> {
  if (change.password !== undefined) {
    const problem = passwordProblem(change.password);
    if (problem) throw new ApiError("bad_request", problem);
  }
  const passwordHash = change.password !== undefined ? await hashPassword(change.password) : undefined;
  return db.$transaction(async (tx) => {
    const before = await tx.user.findUnique({ where: { username } });
    if (!before) throw new ApiError("not_found", `no user named "${username}"`);
    if (before.role === "admin" && ((change.role && change.role !== "admin") || change.disabled)) {
      const admins = await tx.user.count({ where: { role: "admin", disabledAt: null } });
      if (admins <= 1) throw new ApiError("conflict", "this is the last admin; make another admin first");
    }
    const user = await tx.user.update({
      where: { username },
      data: {
        role: change.role,
        passwordHash,
        displayName: change.displayName,
        disabledAt: change.disabled === undefined ? undefined : change.disabled ? (before.disabledAt ?? new Date()) : null,
      },
    });
    // A new role or a lost account takes effect now, not when old sessions expire.
    if (change.role !== undefined || change.disabled || passwordHash) await deleteUserSessions(tx, user.id);
    await appendAudit(tx, {
      actor,
      action: "user.updated",
      targetType: "user",
      targetId: user.username,
      before: { role: before.role, disabled: before.disabledAt !== null },
      after: { role: user.role, disabled: user.disabledAt !== null, passwordChanged: passwordHash !== undefined },
    });
    return toUserDto(user);
  });
}

export interface FirstAdminCredentials {
  username: string;
  password: string;
}

/**
 * On first start (no admin yet), creates `admin` with a random password and
 * hands it to `reveal` once (lib/server/first-admin.ts: the terminal, or a
 * 0600 file; never the log); it is never stored or shown again. Safe to call
 * on every start and from several processes at once.
 */
export async function ensureFirstAdmin(db: Db, reveal: (credentials: FirstAdminCredentials) => void): Promise<{ created: boolean; username?: string }> {
  const admins = await db.user.count({ where: { role: "admin" } });
  if (admins > 0) return { created: false };
  let username = "admin";
  if (await db.user.findUnique({ where: { username } })) username = `admin-${generatePassword().slice(0, 6).toLowerCase()}`;
  const password = generatePassword();
  try {
    await createLocalUser(db, { username, role: "admin", password }, { type: "system", name: "first-start" });
  } catch (e) {
    if (e instanceof ApiError && e.code === "conflict") return { created: false }; // another process won the race
    throw e;
  }
  reveal({ username, password });
  return { created: true, username };
}

export type SignInResult =
  | { ok: true; user: SessionUser; session: { token: string; csrfToken: string; expiresAt: Date } }
  | { ok: false; reason: "invalid" | "rate_limited"; retryAfterSeconds?: number };

/**
 * Password sign-in with throttling. A failure is audited (lib/auth/failed-attempts:
 * the first from an address at once, the rest counted into one summary per
 * window); an attempt refused by the throttle writes nothing.
 */
export async function signInWithPassword(
  db: Db,
  input: { username: string; password: string; ip: string },
  opts: { now?: Date; limiter?: SignInLimiter; failures?: FailedAttemptAudit } = {},
): Promise<SignInResult> {
  const now = opts.now ?? new Date();
  const limiter = opts.limiter ?? signInLimiter;
  const attempted = input.username.slice(0, 100);
  const decision = limiter.check(input.ip, attempted, now.getTime());
  if (!decision.allowed) return { ok: false, reason: "rate_limited", retryAfterSeconds: decision.retryAfterSeconds };
  const user = await db.user.findUnique({ where: { username: attempted } });
  // verifyPassword runs even for unknown users so timing does not reveal which usernames exist.
  const valid = await verifyPassword(input.password, user?.passwordHash);
  if (!user || !valid || user.disabledAt) {
    limiter.fail(input.ip, attempted, now.getTime());
    const reason = user?.disabledAt && valid ? "account disabled" : "wrong username or password";
    await (opts.failures ?? failedAttemptAudit()).record(
      {
        action: "auth.signin_failed",
        method: "password",
        ip: input.ip,
        target: attempted,
        reason,
        event: {
          actor: { type: "anonymous", name: attempted },
          action: "auth.signin_failed",
          targetType: "user",
          targetId: attempted,
          reason,
          after: { ip: input.ip, method: "password" },
        },
      },
      now,
    );
    return { ok: false, reason: "invalid" };
  }
  limiter.succeed(input.ip, attempted);
  const session = await createSession(db, user.id, now);
  await appendAudit(db, {
    actor: { type: "user", id: user.id, name: user.username },
    action: "auth.signin",
    targetType: "user",
    targetId: user.username,
    after: { ip: input.ip, method: "password" },
    at: now,
  });
  return { ok: true, user: { id: user.id, username: user.username, displayName: user.displayName, role: user.role }, session };
}
