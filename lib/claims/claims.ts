// Temporary divergences: drift someone owns, with a reason, an expiry and a
// return path (revert to Git, or adopt into Git). A claim ends by itself when
// all of its drift resolves, recording how.
import { z } from "zod";
import { Prisma, type PrismaClient } from "@/lib/db/generated/client";
import { appendAudit, type Actor } from "@/lib/audit";
import { ApiError } from "@/lib/api/errors";
import { usernameSchema } from "@/lib/auth/users";
import { expiryFields, incidentUrlSchema, reasonSchema, resolveExpiry } from "@/lib/pauses/input";
import type { ClaimDto } from "@/lib/api/contract/claims";

type Db = PrismaClient;
type Tx = Prisma.TransactionClient;

/** Longest a claim may run before someone must renew it (transfer to yourself, or claim again). */
export const MAX_CLAIM_MS = 30 * 86_400_000;
/** Serialises claim creation so one drift item is never in two active claims ("DWCL"). */
const CLAIM_LOCK_KEY = 0x4457434c;

export const createClaimSchema = z
  .object({
    driftItemIds: z.array(z.uuid("expected drift item ids")).min(1, "choose at least one drift item").max(500),
    /** Username of the owner; yourself when absent. */
    owner: usernameSchema.optional(),
    reason: reasonSchema,
    incidentUrl: incidentUrlSchema,
    ...expiryFields,
    returnPath: z.enum(["revert", "adopt"]),
  })
  .strict();
export type CreateClaimInput = Omit<z.infer<typeof createClaimSchema>, "incidentUrl"> & { incidentUrl?: string | null };

export const transferClaimSchema = z.object({ owner: usernameSchema, reason: z.string().trim().max(2000).optional() }).strict();
export const releaseClaimSchema = z.object({ reason: z.string().trim().max(2000).optional() }).strict().optional();

export type { ClaimDto, ClaimItemDto } from "@/lib/api/contract/claims";

const claimInclude = {
  owner: { select: { username: true } },
  createdBy: { select: { username: true } },
  items: { include: { driftItem: { include: { environment: { select: { name: true } } } } } },
} satisfies Prisma.DivergenceClaimInclude;

type ClaimRow = Prisma.DivergenceClaimGetPayload<{ include: typeof claimInclude }>;

export function toClaimDto(row: ClaimRow, now: Date): ClaimDto {
  return {
    id: row.id,
    owner: row.owner.username,
    createdBy: row.createdBy.username,
    reason: row.reason,
    incidentUrl: row.incidentUrl,
    expiresAt: row.expiresAt.toISOString(),
    expired: row.status === "active" && row.expiresAt <= now,
    returnPath: row.returnPath,
    status: row.status,
    createdAt: row.createdAt.toISOString(),
    endedAt: row.endedAt?.toISOString() ?? null,
    endReason: row.endReason,
    resolutionSha: row.resolutionSha,
    items: row.items
      .map(({ driftItem: d }) => ({
        driftItemId: d.id,
        environment: d.environment.name,
        key: d.key,
        kind: d.kind,
        namespace: d.namespace,
        name: d.name,
        type: d.type,
        resolvedAt: d.resolvedAt?.toISOString() ?? null,
        resolution: d.resolution,
        resolutionSha: d.resolutionSha,
      }))
      .sort((a, b) => a.key.localeCompare(b.key)),
  };
}

async function inTx<T>(db: Db | Tx, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return "$transaction" in db ? db.$transaction(fn, { timeout: 30_000 }) : fn(db);
}

async function userByName(tx: Tx, username: string) {
  const user = await tx.user.findUnique({ where: { username } });
  if (!user) throw new ApiError("bad_request", `no user named "${username}"`);
  if (user.disabledAt) throw new ApiError("bad_request", `user "${username}" is disabled`);
  return user;
}

function environmentOf(row: ClaimRow): string | null {
  const names = new Set(row.items.map((i) => i.driftItem.environment.name));
  return names.size === 1 ? ([...names][0] ?? null) : null;
}

export async function getClaim(db: Db | Tx, id: string, now: Date = new Date()): Promise<ClaimDto> {
  const row = await db.divergenceClaim.findUnique({ where: { id }, include: claimInclude });
  if (!row) throw new ApiError("not_found", "claim not found");
  return toClaimDto(row, now);
}

export async function listClaims(
  db: Db,
  filter: { environment?: string; status?: ClaimDto["status"]; owner?: string; driftItemId?: string; limit?: number } = {},
  now: Date = new Date(),
): Promise<ClaimDto[]> {
  const rows = await db.divergenceClaim.findMany({
    where: {
      ...(filter.status ? { status: filter.status } : {}),
      ...(filter.owner ? { owner: { username: filter.owner } } : {}),
      ...(filter.environment || filter.driftItemId
        ? {
            items: {
              some: {
                ...(filter.driftItemId ? { driftItemId: filter.driftItemId } : {}),
                ...(filter.environment ? { driftItem: { environment: { name: filter.environment } } } : {}),
              },
            },
          }
        : {}),
    },
    include: claimInclude,
    orderBy: { createdAt: "desc" },
    take: Math.min(filter.limit ?? 200, 1000),
  });
  return rows.map((r) => toClaimDto(r, now));
}

export async function createClaim(db: Db, input: CreateClaimInput, actor: Extract<Actor, { type: "user" }>, now: Date = new Date()): Promise<ClaimDto> {
  const expiresAt = resolveExpiry(input, now, MAX_CLAIM_MS);
  const ids = [...new Set(input.driftItemIds)];
  const id = await inTx(db, async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${CLAIM_LOCK_KEY}::bigint)`;
    const owner = input.owner ? await userByName(tx, input.owner) : await tx.user.findUniqueOrThrow({ where: { id: actor.id } });
    const items = await tx.driftItem.findMany({ where: { id: { in: ids } }, include: { environment: { select: { name: true } } } });
    if (items.length !== ids.length) {
      const found = new Set(items.map((i) => i.id));
      throw new ApiError("not_found", `drift item not found: ${ids.filter((i) => !found.has(i)).join(", ")}`);
    }
    const resolved = items.filter((i) => i.resolvedAt !== null);
    if (resolved.length) throw new ApiError("conflict", `already resolved, nothing to claim: ${resolved.map((i) => i.key).join(", ")}`);
    const taken = await tx.claimItem.findMany({
      where: { driftItemId: { in: ids }, claim: { status: "active" } },
      include: { claim: { include: { owner: { select: { username: true } } } }, driftItem: { select: { key: true } } },
    });
    if (taken.length) {
      throw new ApiError(
        "conflict",
        `already claimed: ${taken.map((t) => `${t.driftItem.key} (by ${t.claim.owner.username})`).join(", ")}; transfer that claim instead`,
        { claimIds: [...new Set(taken.map((t) => t.claimId))] },
      );
    }
    const claim = await tx.divergenceClaim.create({
      data: {
        ownerId: owner.id,
        createdById: actor.id,
        reason: input.reason,
        incidentUrl: input.incidentUrl ?? null,
        expiresAt,
        returnPath: input.returnPath,
        createdAt: now,
        items: { create: ids.map((driftItemId) => ({ driftItemId })) },
      },
    });
    const envs = new Set(items.map((i) => i.environment.name));
    await appendAudit(tx, {
      actor,
      action: "claim.created",
      targetType: "claim",
      targetId: claim.id,
      environment: envs.size === 1 ? [...envs][0] : null,
      reason: input.reason,
      after: {
        owner: owner.username,
        returnPath: input.returnPath,
        expiresAt: expiresAt.toISOString(),
        incidentUrl: input.incidentUrl ?? null,
        items: items.map((i) => ({ id: i.id, environment: i.environment.name, key: i.key, type: i.type })),
      },
      at: now,
    });
    return claim.id;
  });
  return getClaim(db, id, now);
}

async function activeClaim(tx: Tx, id: string) {
  // Row lock: a transfer and a release of the same claim cannot both win.
  const locked = await tx.$queryRaw<Array<{ id: string }>>`SELECT id FROM "DivergenceClaim" WHERE id = ${id}::uuid FOR UPDATE`;
  if (locked.length === 0) throw new ApiError("not_found", "claim not found");
  const row = await tx.divergenceClaim.findUniqueOrThrow({ where: { id }, include: claimInclude });
  if (row.status !== "active") throw new ApiError("conflict", `this claim is already ${row.status}`);
  return row;
}

/** Hands the claim to someone else: the old claim ends as transferred and a new one, same items and terms, starts. */
export async function transferClaim(
  db: Db,
  id: string,
  input: z.infer<typeof transferClaimSchema>,
  actor: Extract<Actor, { type: "user" }>,
  now: Date = new Date(),
): Promise<ClaimDto> {
  const newId = await inTx(db, async (tx) => {
    const row = await activeClaim(tx, id);
    const to = await userByName(tx, input.owner);
    if (to.id === row.ownerId) throw new ApiError("conflict", `${to.username} already owns this claim`);
    await tx.divergenceClaim.update({ where: { id }, data: { status: "transferred", endedAt: now, endReason: `transferred to ${to.username}` } });
    const next = await tx.divergenceClaim.create({
      data: {
        ownerId: to.id,
        createdById: actor.id,
        reason: row.reason,
        incidentUrl: row.incidentUrl,
        expiresAt: row.expiresAt,
        returnPath: row.returnPath,
        createdAt: now,
        items: { create: row.items.map((i) => ({ driftItemId: i.driftItemId })) },
      },
    });
    await appendAudit(tx, {
      actor,
      action: "claim.transferred",
      targetType: "claim",
      targetId: id,
      environment: environmentOf(row),
      reason: input.reason || null,
      before: { owner: row.owner.username },
      after: { owner: to.username, claimId: next.id },
      at: now,
    });
    return next.id;
  });
  return getClaim(db, newId, now);
}

export async function releaseClaim(
  db: Db,
  id: string,
  input: { reason?: string } | undefined,
  actor: Extract<Actor, { type: "user" }>,
  now: Date = new Date(),
): Promise<ClaimDto> {
  await inTx(db, async (tx) => {
    const row = await activeClaim(tx, id);
    const endReason = input?.reason?.trim() || "released";
    await tx.divergenceClaim.update({ where: { id }, data: { status: "released", endedAt: now, endReason } });
    await appendAudit(tx, {
      actor,
      action: "claim.released",
      targetType: "claim",
      targetId: id,
      environment: environmentOf(row),
      reason: endReason,
      before: { owner: row.owner.username, status: "active" },
      after: { status: "released" },
      at: now,
    });
  });
  return getClaim(db, id, now);
}

type Resolution = "reverted" | "adopted" | "deleted" | "ignored";

function describe(resolution: Resolution | null, sha: string | null): string {
  switch (resolution) {
    case "reverted":
      return "reverted";
    case "adopted":
      return sha ? `adopted in commit ${sha.slice(0, 12)}` : "adopted";
    case "deleted":
      return "deleted";
    case "ignored":
      return "ignored by a rule";
    default:
      return "resolved";
  }
}

/**
 * Called by the collector (inside its transaction, or with the client) after
 * drift items resolved. Every active claim whose items are now all resolved
 * ends as `resolved`, recording how: reverted / adopted in commit X / deleted.
 * `how` overrides what the DriftItem rows say (when the caller knows better
 * or has not written it yet). Returns the ids of the claims closed.
 */
export async function closeClaimsForResolvedDrift(
  db: Db | Tx,
  resolvedDriftItemIds: string[],
  how?: { resolution: Resolution; sha?: string | null },
  now: Date = new Date(),
): Promise<string[]> {
  if (resolvedDriftItemIds.length === 0) return [];
  const given = new Set(resolvedDriftItemIds);
  return inTx(db, async (tx) => {
    const claims = await tx.divergenceClaim.findMany({
      where: { status: "active", items: { some: { driftItemId: { in: resolvedDriftItemIds } } } },
      include: claimInclude,
    });
    const closed: string[] = [];
    for (const claim of claims) {
      const outcomes = claim.items.map(({ driftItem: d }) => {
        const resolved = d.resolvedAt !== null || given.has(d.id);
        const resolution = (given.has(d.id) && how ? how.resolution : d.resolution) as Resolution | null;
        const sha = given.has(d.id) && how && how.sha !== undefined ? how.sha : d.resolutionSha;
        return { key: d.key, resolved, resolution, sha };
      });
      if (!outcomes.every((o) => o.resolved)) continue;
      const descriptions = new Set(outcomes.map((o) => describe(o.resolution, o.sha)));
      const endReason =
        descriptions.size === 1 ? [...descriptions][0]! : outcomes.map((o) => `${o.key}: ${describe(o.resolution, o.sha)}`).join("; ");
      const shas = [...new Set(outcomes.map((o) => (o.resolution === "adopted" ? o.sha : null)).filter((s): s is string => !!s))];
      const n = await tx.divergenceClaim.updateMany({
        where: { id: claim.id, status: "active" },
        data: { status: "resolved", endedAt: now, endReason, resolutionSha: shas.length === 1 ? shas[0] : null },
      });
      if (n.count === 0) continue;
      await appendAudit(tx, {
        actor: { type: "system", name: "collector" },
        action: "claim.resolved",
        targetType: "claim",
        targetId: claim.id,
        environment: environmentOf(claim),
        reason: endReason,
        before: { owner: claim.owner.username, returnPath: claim.returnPath },
        after: { status: "resolved", items: outcomes.map((o) => ({ key: o.key, resolution: o.resolution, sha: o.sha })) },
        at: now,
      });
      closed.push(claim.id);
    }
    return closed;
  });
}
