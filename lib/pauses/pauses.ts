// Paused reconciliation: who, why, since, until. A pause is made through the
// dashboard (recorded, and executed on the controller where a write
// credential is configured) or detected (seen suspended in the cluster with no
// record) and then flagged until someone takes ownership.
import { z } from "zod";
import { Prisma, type PrismaClient } from "@/lib/db/generated/client";
import type { ControllerConfig, EnvironmentConfig } from "@/lib/config";
import type { ControllerStatus } from "@/lib/kube/controller-status";
import { appendAudit, type Actor } from "@/lib/audit";
import { ApiError } from "@/lib/api/errors";
import { KubeError } from "@/lib/kube/errors";
import {
  controllerFromRef,
  controllerRefOf,
  defaultClientFactory,
  eachPolicyOf,
  EachFailure,
  resumeController,
  resumeEach,
  suspendController,
  suspendEach,
  type ClientFactory,
  type EachTarget,
} from "./controller";
import { expiryFields, incidentUrlSchema, reasonSchema, resolveExpiry } from "./input";
import type { PausePolicyDto, PauseRecordDto } from "@/lib/api/contract/pauses";
import { applicationIdForControllerRef, controllerRefKey } from "@/lib/applications/controller-ref";
import type { ControllerRef } from "@/lib/applications/spec";

type Db = PrismaClient;
type Tx = Prisma.TransactionClient;

export interface PauseDeps {
  now?: Date;
  clientFor?: ClientFactory;
}

export const createPauseSchema = z
  .object({
    reason: reasonSchema,
    ...expiryFields,
    incidentUrl: incidentUrlSchema,
    /** The environment's name, typed again, where the environment asks for it (production). */
    confirm: z.string().max(200).optional(),
    /** "Kind/namespace/name"; defaults to the environment's controller object. */
    controllerRef: z.string().max(400).optional(),
    /** Pause only this application (its controller object); without it, the whole environment. */
    application: z.string().min(1).max(253).optional(),
  })
  .strict();
/** What the schema yields; callers in code may leave the incident link out. */
export type CreatePauseInput = Omit<z.infer<typeof createPauseSchema>, "incidentUrl"> & { incidentUrl?: string | null };

export const takeOwnershipSchema = z.object({ reason: reasonSchema, ...expiryFields, incidentUrl: incidentUrlSchema }).strict();
export type TakeOwnershipInput = Omit<z.infer<typeof takeOwnershipSchema>, "incidentUrl"> & { incidentUrl?: string | null };

export const resumePauseSchema = z.object({ reason: z.string().trim().max(2000).optional() }).strict().optional();

/** The wire shape is the contract's (lib/api/contract/pauses.ts). */
export type PauseDto = PauseRecordDto;

const pauseInclude = {
  environment: { select: { name: true, controller: true } },
  application: { select: { name: true, controller: true } },
  createdBy: { select: { username: true } },
  owner: { select: { username: true } },
} satisfies Prisma.PauseInclude;

type PauseRow = Prisma.PauseGetPayload<{ include: typeof pauseInclude }>;

function controllerOf(json: unknown): ControllerStatus | null {
  return json && typeof json === "object" && "suspended" in json ? (json as ControllerStatus) : null;
}

export function toPauseDto(row: PauseRow, now: Date, endedByName: string | null = null): PauseDto {
  // A pause of one application is about its controller object, not the environment's.
  const status = controllerOf(row.application?.controller ?? row.environment.controller);
  const active = row.endedAt === null;
  return {
    id: row.id,
    environment: row.environment.name,
    application: row.application?.name ?? null,
    controllerRef: row.controllerRef,
    origin: row.origin,
    active,
    unattributed: active && row.origin === "detected" && row.ownerId === null,
    createdBy: row.createdBy?.username ?? null,
    owner: row.owner?.username ?? null,
    reason: row.reason,
    incidentUrl: row.incidentUrl,
    startedAt: row.startedAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    expired: active && row.expiresAt !== null && row.expiresAt <= now,
    executed: row.executed,
    clusterAgrees: status?.found ? status.suspended === active : null,
    detectedManager: row.detectedManager,
    detectedAt: row.detectedAt?.toISOString() ?? null,
    endedAt: row.endedAt?.toISOString() ?? null,
    endedBy: endedByName,
    endReason: row.endReason,
  };
}

/** The environment's definition as synced from driftwatch.yaml (Environment.spec). */
export function environmentConfigOf(spec: unknown): EnvironmentConfig {
  if (!spec || typeof spec !== "object" || typeof (spec as { name?: unknown }).name !== "string") {
    throw new ApiError("unavailable", "this environment's configuration has not been loaded yet");
  }
  return spec as EnvironmentConfig;
}

async function loadEnvironment(db: Db | Tx, name: string) {
  const env = await db.environment.findUnique({ where: { name } });
  if (!env || env.removedAt) throw new ApiError("not_found", `environment "${name}" not found`);
  return { env, config: environmentConfigOf(env.spec) };
}

function userIdOf(actor: Actor): string | null {
  return actor.type === "user" ? actor.id : null;
}
function actorName(actor: Actor): string {
  return actor.type === "system" ? (actor.name ?? "system") : actor.name;
}

function kubeMessage(e: unknown): string {
  if (e instanceof KubeError) return e.message;
  return e instanceof Error ? e.message : String(e);
}

async function endedByNames(db: Db | Tx, rows: PauseRow[]): Promise<Map<string, string>> {
  const ids = [...new Set(rows.map((r) => r.endedById).filter((id): id is string => id !== null))];
  if (ids.length === 0) return new Map();
  const users = await db.user.findMany({ where: { id: { in: ids } }, select: { id: true, username: true } });
  return new Map(users.map((u) => [u.id, u.username]));
}

async function dto(db: Db | Tx, id: string, now: Date): Promise<PauseDto> {
  const row = await db.pause.findUniqueOrThrow({ where: { id }, include: pauseInclude });
  const names = await endedByNames(db, [row]);
  return toPauseDto(row, now, row.endedById ? (names.get(row.endedById) ?? null) : null);
}

export async function listPauses(
  db: Db,
  filter: { environment?: string; active?: boolean; limit?: number } = {},
  now: Date = new Date(),
): Promise<PauseDto[]> {
  const rows = await db.pause.findMany({
    where: {
      ...(filter.environment ? { environment: { name: filter.environment } } : {}),
      ...(filter.active === undefined ? {} : filter.active ? { endedAt: null } : { endedAt: { not: null } }),
    },
    include: pauseInclude,
    orderBy: { startedAt: "desc" },
    take: Math.min(filter.limit ?? 200, 1000),
  });
  const names = await endedByNames(db, rows);
  return rows.map((r) => toPauseDto(r, now, r.endedById ? (names.get(r.endedById) ?? null) : null));
}

export async function getPause(db: Db, id: string, now: Date = new Date()): Promise<PauseDto> {
  const exists = await db.pause.findUnique({ where: { id }, select: { id: true } });
  if (!exists) throw new ApiError("not_found", "pause not found");
  return dto(db, id, now);
}

export function isUniqueViolation(e: unknown): boolean {
  return e instanceof Prisma.PrismaClientKnownRequestError && e.code === "P2002";
}

interface PauseTarget {
  /** "Kind/namespace/name" of the controller object the pause acts on, or null (an environment without one). */
  ref: string | null;
  controller: ControllerConfig | null;
  applicationId: string | null;
  /**
   * A whole-environment pause of an environment without a controller object
   * of its own: each application's object, suspended one by one as one pause.
   */
  each: EachTarget[];
}

const onHub = (ref: unknown): boolean => typeof ref === "object" && ref !== null && (ref as { hub?: unknown }).hub === true;

/** Each application's own controller object (once each, by application name), for a pause of the whole environment. */
async function applicationControllers(db: Db | Tx, environmentId: string): Promise<EachTarget[]> {
  const apps = await db.application.findMany({ where: { environmentId, removedAt: null }, select: { name: true, controllerRef: true }, orderBy: { name: "asc" } });
  const out: EachTarget[] = [];
  const seen = new Set<string>();
  for (const a of apps) {
    // An Argo CD hub's Application is not in the cluster the write credential reaches: it is not suspended from here.
    if (onHub(a.controllerRef)) continue;
    const ref = a.controllerRef ? controllerRefKey(a.controllerRef as ControllerRef) : null;
    const controller = ref ? controllerFromRef(ref) : null;
    if (!ref || !controller || seen.has(ref)) continue;
    seen.add(ref);
    out.push({ application: a.name, ref, controller });
  }
  return out;
}

/** What a pause acts on: one application's controller object, the environment's, or (without one) each application's. */
async function pauseTarget(db: Db | Tx, environmentId: string, config: EnvironmentConfig, application: string | undefined): Promise<PauseTarget> {
  if (application === undefined) {
    const ref = controllerRefOf(config);
    return { ref, controller: config.controller ?? null, applicationId: null, each: ref ? [] : await applicationControllers(db, environmentId) };
  }
  const app = await db.application.findFirst({ where: { environmentId, name: application, removedAt: null }, select: { id: true, controllerRef: true } });
  if (!app) throw new ApiError("not_found", `application "${application}" in environment "${config.name}" not found`);
  const ref = app.controllerRef ? controllerRefKey(app.controllerRef as ControllerRef) : null;
  // On an Argo CD hub the pause is recorded, not performed: the environment's write credential does not reach the hub.
  const controller = ref && !onHub(app.controllerRef) ? controllerFromRef(ref) : null;
  if (ref && onHub(app.controllerRef)) return { ref, controller: null, applicationId: app.id, each: [] };
  if (!ref || !controller) {
    throw new ApiError("bad_request", `application "${application}" has no controller object to pause (it is declared in driftwatch.yaml); pause the environment instead`);
  }
  return { ref, controller, applicationId: app.id, each: [] };
}

/** How a failed all-or-nothing step reads: the failing object, and what could not be put back (to do by hand). */
function eachFailureMessage(e: EachFailure, doing: "paused" | "resumed", outcome: string): string {
  const verb = doing === "paused" ? "pause" : "resume";
  const head = `could not ${verb} ${e.failed.ref} (application "${e.failed.application}"): ${e.failed.message}`;
  const back = e.undone > 0 ? `; the ${e.undone} already ${doing} ${e.undone === 1 ? "was" : "were"} put back as ${e.undone === 1 ? "it was" : "they were"}` : "";
  const stuck = e.notUndone.length > 0 ? `; could not put back ${e.notUndone.map((n) => `${n.ref} (${n.message})`).join(", ")}: ${doing === "paused" ? "still suspended by Driftwatch, resume by hand" : "suspended again failed, check by hand"}` : "";
  return `${head}${back}${stuck}; ${outcome}`;
}

/** What the pause form must ask for: the typed confirmation, the longest expiry, and whether Driftwatch performs it. */
export async function pausePolicy(db: Db, environmentName: string, application?: string): Promise<PausePolicyDto> {
  const { env, config } = await loadEnvironment(db, environmentName);
  const target = await pauseTarget(db, env.id, config, application);
  return {
    environment: config.name,
    application: application ?? null,
    confirmPause: config.confirmPause,
    maxPauseMs: config.maxPause,
    autoResume: config.autoResume,
    controllerRef: target.ref,
    controllerRefs: target.each.map((t) => t.ref),
    executes: Boolean(config.write && (target.controller || target.each.length > 0)),
  };
}

/**
 * Pauses an environment (or its controller object). With a write credential
 * the controller is suspended inside the same transaction that records the
 * pause: if the cluster refuses, nothing is recorded and the caller hears why.
 */
export async function createPause(
  db: Db,
  environmentName: string,
  input: CreatePauseInput,
  actor: Actor,
  deps: PauseDeps = {},
): Promise<PauseDto> {
  const now = deps.now ?? new Date();
  const { env, config } = await loadEnvironment(db, environmentName);
  if (config.confirmPause && input.confirm?.trim() !== config.name) {
    throw new ApiError("bad_request", `type the environment's name ("${config.name}") to confirm pausing it`);
  }
  const expiresAt = resolveExpiry(input, now, config.maxPause);
  const environmentRef = controllerRefOf(config);
  const target = await pauseTarget(db, env.id, config, input.application);
  const ref = target.ref;
  if (input.controllerRef && input.controllerRef !== ref) {
    throw new ApiError(
      "bad_request",
      `unknown controller object "${input.controllerRef}"${ref ? ` (${input.application ? `application "${input.application}"` : "this environment"}'s is "${ref}")` : " (this environment has none configured)"}`,
    );
  }
  const execute = Boolean(config.write && (target.controller || target.each.length > 0));
  const clientFor = deps.clientFor ?? defaultClientFactory;
  let id: string;
  try {
    id = await db.$transaction(
      async (tx) => {
        const active = await tx.pause.findMany({ where: { environmentId: env.id, endedAt: null }, include: { application: { select: { name: true } } } });
        // The whole environment is paused by its own pause; one application by a pause of its controller object.
        const wholeEnvironment = active.find((p) => p.controllerRef === environmentRef);
        const blocking = input.application ? (wholeEnvironment ?? active.find((p) => p.controllerRef === ref || (target.applicationId !== null && p.applicationId === target.applicationId))) : active[0];
        if (blocking) {
          const what = blocking === wholeEnvironment ? "this environment" : blocking.application ? `application "${blocking.application.name}"` : `${blocking.controllerRef ?? "this environment"}`;
          throw new ApiError(
            "conflict",
            blocking.origin === "detected" && !blocking.ownerId
              ? `${what} is already paused outside Driftwatch; take ownership of that pause instead`
              : `${what} is already paused; resume it first or extend the existing pause`,
            { pauseId: blocking.id },
          );
        }
        const pause = await tx.pause.create({
          data: {
            environmentId: env.id,
            controllerRef: ref,
            applicationId: target.applicationId ?? (await applicationIdForControllerRef(tx, env.id, ref)),
            origin: "dashboard",
            createdById: userIdOf(actor),
            ownerId: userIdOf(actor),
            reason: input.reason,
            incidentUrl: input.incidentUrl ?? null,
            startedAt: now,
            expiresAt,
          },
        });
        let previousPolicy: unknown = null;
        if (execute && config.write && target.controller) {
          try {
            ({ previousPolicy } = await suspendController(clientFor(config.write), target.controller, {
              pauseId: pause.id,
              by: actorName(actor),
              reason: input.reason,
              until: expiresAt,
            }));
          } catch (e) {
            throw new ApiError("unavailable", `the controller could not be paused, so nothing was recorded: ${kubeMessage(e)}`);
          }
          await tx.pause.update({
            where: { id: pause.id },
            data: { executed: true, previousPolicy: previousPolicy === null ? Prisma.DbNull : (previousPolicy as Prisma.InputJsonValue) },
          });
        } else if (execute && config.write && target.each.length > 0) {
          // All or nothing: a failure puts back what was done, and this transaction records nothing.
          try {
            previousPolicy = await suspendEach(clientFor(config.write), target.each, { pauseId: pause.id, by: actorName(actor), reason: input.reason, until: expiresAt });
          } catch (e) {
            if (e instanceof EachFailure) throw new ApiError("unavailable", eachFailureMessage(e, "paused", "nothing was recorded"), { controllerRef: e.failed.ref, application: e.failed.application });
            throw e;
          }
          await tx.pause.update({ where: { id: pause.id }, data: { executed: true, previousPolicy: previousPolicy as Prisma.InputJsonValue } });
        }
        await appendAudit(tx, {
          actor,
          action: "pause.created",
          targetType: "pause",
          targetId: pause.id,
          environment: env.name,
          reason: input.reason,
          after: {
            controllerRef: ref,
            application: input.application ?? null,
            ...(target.each.length > 0 ? { applications: target.each.map((t) => ({ application: t.application, controllerRef: t.ref })) } : {}),
            expiresAt: expiresAt.toISOString(),
            incidentUrl: input.incidentUrl ?? null,
            executed: execute,
            previousPolicy,
          },
          at: now,
        });
        return pause.id;
      },
      // Each object is a GET and a PATCH (and, on failure, a PATCH back).
      { timeout: 30_000 + target.each.length * 3_000, maxWait: 10_000 },
    );
  } catch (e) {
    if (isUniqueViolation(e)) throw new ApiError("conflict", `${input.application ? `application "${input.application}"` : "this environment"} was paused a moment ago; reload to see the pause`);
    throw e;
  }
  return dto(db, id, now);
}

/**
 * Ends a pause. Executed pauses are resumed on the controller (the previous
 * Argo CD policy restored); a detected Flux pause is resumed too when a write
 * credential exists. Otherwise only the record ends, and the answer says the
 * cluster still has to be resumed by hand.
 */
export async function resumePause(
  db: Db,
  pauseId: string,
  actor: Actor,
  deps: PauseDeps & { reason?: string } = {},
): Promise<PauseDto & { resumedOnController: boolean }> {
  const now = deps.now ?? new Date();
  const pause = await db.pause.findUnique({ where: { id: pauseId }, include: { environment: true, application: { select: { name: true } } } });
  if (!pause) throw new ApiError("not_found", "pause not found");
  if (pause.endedAt) throw new ApiError("conflict", "this pause has already ended");
  const config = environmentConfigOf(pause.environment.spec);
  // The object the pause is recorded on (one application's, or the environment's).
  const controller = (pause.controllerRef ? controllerFromRef(pause.controllerRef) : null) ?? config.controller ?? null;
  const canWrite = Boolean(config.write && controller);
  const each = pause.executed && !pause.controllerRef ? eachPolicyOf(pause.previousPolicy) : null;
  const onController = (canWrite && (pause.executed || (pause.origin === "detected" && controller?.type === "flux"))) || Boolean(config.write && each);
  const clientFor = deps.clientFor ?? defaultClientFactory;
  if (each && config.write) {
    // All or nothing, as the pause was made: a failure suspends again what was resumed, and the pause stays.
    const meta = { pauseId: pause.id, by: actorName(actor), reason: pause.reason ?? "", until: pause.expiresAt ?? now };
    try {
      await resumeEach(clientFor(config.write), each, meta);
    } catch (e) {
      if (e instanceof EachFailure) throw new ApiError("unavailable", eachFailureMessage(e, "resumed", "the pause stays"), { controllerRef: e.failed.ref, application: e.failed.application });
      throw e;
    }
  } else if (onController && config.write && controller) {
    try {
      await resumeController(clientFor(config.write), controller, pause.previousPolicy);
    } catch (e) {
      throw new ApiError("unavailable", `the controller could not be resumed; the pause stays: ${kubeMessage(e)}`);
    }
  }
  const endReason = deps.reason?.trim() || (actor.type === "system" ? "expired (automatic resume)" : "resumed");
  const updated = await db.$transaction(async (tx) => {
    const n = await tx.pause.updateMany({
      where: { id: pauseId, endedAt: null },
      data: { endedAt: now, endedById: userIdOf(actor), endReason },
    });
    if (n.count === 0) throw new ApiError("conflict", "this pause has already ended");
    await appendAudit(tx, {
      actor,
      action: "pause.ended",
      targetType: "pause",
      targetId: pauseId,
      environment: pause.environment.name,
      reason: endReason,
      before: { origin: pause.origin, reason: pause.reason, expiresAt: pause.expiresAt?.toISOString() ?? null },
      after: { resumedOnController: onController, application: pause.application?.name ?? null, ...(each ? { applications: each.each.map((e) => ({ application: e.application, controllerRef: e.ref })) } : {}) },
      at: now,
    });
    return dto(tx, pauseId, now);
  });
  return { ...updated, resumedOnController: onController };
}

/** Someone owns a detected pause: it gets a reason and an expiry, and stops being unattributed. */
export async function takeOwnership(db: Db, pauseId: string, input: TakeOwnershipInput, actor: Actor, deps: PauseDeps = {}): Promise<PauseDto> {
  const now = deps.now ?? new Date();
  if (actor.type !== "user") throw new ApiError("forbidden", "only a signed-in user can take ownership of a pause");
  return db.$transaction(async (tx) => {
    const pause = await tx.pause.findUnique({ where: { id: pauseId }, include: { environment: true } });
    if (!pause) throw new ApiError("not_found", "pause not found");
    if (pause.endedAt) throw new ApiError("conflict", "this pause has already ended");
    const config = environmentConfigOf(pause.environment.spec);
    const expiresAt = resolveExpiry(input, now, config.maxPause);
    await tx.pause.update({
      where: { id: pauseId },
      data: { ownerId: actor.id, reason: input.reason, expiresAt, incidentUrl: input.incidentUrl ?? pause.incidentUrl },
    });
    await appendAudit(tx, {
      actor,
      action: "pause.claimed",
      targetType: "pause",
      targetId: pauseId,
      environment: pause.environment.name,
      reason: input.reason,
      before: { ownerId: pause.ownerId, reason: pause.reason, expiresAt: pause.expiresAt?.toISOString() ?? null },
      after: { owner: actor.name, expiresAt: expiresAt.toISOString(), detectedManager: pause.detectedManager },
      at: now,
    });
    return dto(tx, pauseId, now);
  });
}
