// Makes the Alert table match the rules' verdict: opens what is newly wrong,
// resolves what is fixed (one open alert per fingerprint), audits both, and
// delivers changes to webhooks, re-sending only when what a receiver would
// see changed.
import { Prisma, type PrismaClient } from "@/lib/db/generated/client";
import { appendAudit, SYSTEM } from "@/lib/audit";
import { canonicalJson } from "@/lib/audit/canonical";
import type { ControllerStatus, EnvironmentError } from "@/lib/domain/types";
import { rollupInputs } from "@/lib/applications/rollup";
import { judgedPerApplication } from "@/lib/applications/per-application";
import { sourceUrlsOf } from "@/lib/applications/controller-objects";
import { evaluateAlerts, type AlertSnapshot, type AlertType, type DesiredAlert, type Severity, type SnapshotApplication } from "./rules";
import { alertPayload, contentHash, postWebhook, type AlertEvent, type DeliveryResult, type WebhookTarget } from "./deliver";
import { runbookFor } from "./runbooks";
import type { AlertRecordDto } from "@/lib/api/contract/alerts";

type Db = PrismaClient;

/** "DWAL": one alert sync at a time, across processes, so an alert is opened or resolved once. */
const ALERT_LOCK_KEY = 0x4457414c;

export interface SyncOptions {
  webhooks?: WebhookTarget[];
  runbooks?: Record<string, string>;
  publicUrl?: string;
  env?: Record<string, string | undefined>;
  fetchImpl?: typeof fetch;
}

export interface SyncResult {
  opened: string[];
  updated: string[];
  resolved: string[];
  deliveries: Array<DeliveryResult & { alertId: string; event: AlertEvent }>;
}

function sameContent(a: { severity: string; title: string; details: unknown }, b: DesiredAlert): boolean {
  return a.severity === b.severity && a.title === b.title && canonicalJson(a.details) === canonicalJson(b.details);
}

/**
 * `environmentId` scopes the sync: only that environment's alerts are opened
 * or resolved (the collector after one run); null syncs every alert.
 */
export async function syncAlerts(db: Db, environmentId: string | null, desired: DesiredAlert[], now: Date = new Date(), opts: SyncOptions = {}): Promise<SyncResult> {
  const inScope = (envId: string | null) => environmentId === null || envId === environmentId;
  const wanted = desired.filter((d) => inScope(d.environmentId));
  const result: SyncResult = { opened: [], updated: [], resolved: [], deliveries: [] };

  await db.$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${ALERT_LOCK_KEY}::bigint)`;
      const open = await tx.alert.findMany({ where: { resolvedAt: null }, include: { environment: { select: { name: true } } } });
      const byFingerprint = new Map(open.map((a) => [a.fingerprint, a]));
      const wantedFingerprints = new Set(wanted.map((d) => d.fingerprint));

      for (const d of wanted) {
        const existing = byFingerprint.get(d.fingerprint);
        if (!existing) {
          const row = await tx.alert.create({
            data: {
              environmentId: d.environmentId,
              type: d.type,
              fingerprint: d.fingerprint,
              severity: d.severity,
              title: d.title,
              details: d.details as Prisma.InputJsonValue,
              openedAt: now,
              updatedAt: now,
            },
          });
          await appendAudit(tx, {
            actor: SYSTEM,
            action: "alert.opened",
            targetType: "alert",
            targetId: row.id,
            environment: d.environment,
            reason: d.title,
            after: { title: d.title, type: d.type, severity: d.severity, fingerprint: d.fingerprint, details: d.details },
            at: now,
          });
          if (d.type === "claim_expired" && typeof d.details.claimId === "string") {
            // The claim's own history says when it ran out, not only the alert's.
            await appendAudit(tx, {
              actor: SYSTEM,
              action: "claim.expired",
              targetType: "claim",
              targetId: d.details.claimId,
              environment: d.environment,
              reason: d.title,
              after: { owner: d.details.owner ?? null, expiresAt: d.details.expiresAt ?? null },
              at: now,
            });
          }
          result.opened.push(row.id);
        } else if (!sameContent(existing, d)) {
          await tx.alert.update({
            where: { id: existing.id },
            data: { severity: d.severity, title: d.title, details: d.details as Prisma.InputJsonValue, updatedAt: now },
          });
          result.updated.push(existing.id);
        }
      }

      for (const a of open) {
        if (!inScope(a.environmentId) || wantedFingerprints.has(a.fingerprint)) continue;
        await tx.alert.update({ where: { id: a.id }, data: { resolvedAt: now, updatedAt: now } });
        await appendAudit(tx, {
          actor: SYSTEM,
          action: "alert.resolved",
          targetType: "alert",
          targetId: a.id,
          environment: a.environment?.name ?? null,
          reason: a.title,
          before: { title: a.title, type: a.type, severity: a.severity, openedAt: a.openedAt.toISOString() },
          at: now,
        });
        result.resolved.push(a.id);
      }
    },
    { timeout: 30_000, maxWait: 15_000 },
  );

  if (opts.webhooks?.length) result.deliveries = await deliverPending(db, environmentId, now, opts);
  return result;
}

/**
 * Sends every alert whose receiver-visible content differs from what was
 * last delivered. The new hash is claimed before sending (a conditional
 * update), so two processes never send the same change twice; when every
 * webhook fails the claim is undone and the next sync tries again.
 */
export async function deliverPending(db: Db, environmentId: string | null, now: Date, opts: SyncOptions): Promise<SyncResult["deliveries"]> {
  const webhooks = opts.webhooks ?? [];
  if (webhooks.length === 0) return [];
  const rows = await db.alert.findMany({
    where: {
      ...(environmentId === null ? {} : { environmentId }),
      OR: [{ resolvedAt: null }, { resolvedAt: { gt: new Date(now.getTime() - 86_400_000) } }],
    },
    include: { environment: { select: { name: true } } },
    orderBy: { openedAt: "asc" },
  });
  const out: SyncResult["deliveries"] = [];
  for (const row of rows) {
    const alert = {
      id: row.id,
      type: row.type as AlertType,
      severity: row.severity as Severity,
      title: row.title,
      environment: row.environment?.name ?? null,
      details: (row.details ?? {}) as Record<string, unknown>,
      openedAt: row.openedAt,
      resolvedAt: row.resolvedAt,
    };
    const hash = contentHash(alert);
    if (row.notifiedHash === hash) continue;
    const claimed = await db.alert.updateMany({ where: { id: row.id, notifiedHash: row.notifiedHash }, data: { notifiedHash: hash, notifiedAt: now } });
    if (claimed.count === 0) continue; // another process is delivering this change
    // Resolved before anyone was told it opened: nothing to tell now either.
    if (row.resolvedAt && row.notifiedHash === null) continue;
    const event: AlertEvent = row.resolvedAt ? "alert.resolved" : row.notifiedHash === null ? "alert.opened" : "alert.updated";
    const payload = alertPayload(alert, event, { publicUrl: opts.publicUrl, runbooks: opts.runbooks });
    const results = await Promise.all(webhooks.map((w) => postWebhook(w, payload, event, { env: opts.env, fetchImpl: opts.fetchImpl })));
    out.push(...results.map((r) => ({ ...r, alertId: row.id, event })));
    if (!results.some((r) => r.ok)) {
      await db.alert.updateMany({ where: { id: row.id, notifiedHash: hash }, data: { notifiedHash: row.notifiedHash, notifiedAt: row.notifiedAt } });
    }
  }
  return out;
}

function num(v: unknown, fallback: number): number {
  return typeof v === "number" && Number.isFinite(v) && v > 0 ? v : fallback;
}

/**
 * Everything the rules need, read in a handful of queries. `now` decides
 * which pauses have started (one scheduled for later does not hold an
 * application back yet).
 */
export async function loadAlertSnapshot(db: Db, environmentId: string | null = null, now: Date = new Date()): Promise<AlertSnapshot> {
  const envWhere = environmentId ? { id: environmentId, removedAt: null } : { removedAt: null };
  const [envs, drift, claims, pauses] = await Promise.all([
    db.environment.findMany({ where: envWhere }),
    db.driftItem.findMany({
      where: { resolvedAt: null, environment: envWhere },
      select: { id: true, environmentId: true, key: true, type: true, openedAt: true, claims: { where: { claim: { status: "active" } }, select: { claimId: true } } },
    }),
    db.divergenceClaim.findMany({
      where: { status: "active", ...(environmentId ? { items: { some: { driftItem: { environmentId } } } } : {}) },
      include: { owner: { select: { username: true } }, items: { include: { driftItem: { select: { environmentId: true, key: true } } } } },
    }),
    db.pause.findMany({ where: { endedAt: null, environment: envWhere }, include: { owner: { select: { username: true } } } }),
  ]);
  const perApplication = envs.filter((e) => judgedPerApplication(e.spec));
  const apps =
    perApplication.length === 0
      ? []
      : await db.application.findMany({
          where: { removedAt: null, environmentId: { in: perApplication.map((e) => e.id) } },
          select: { id: true, environmentId: true, name: true, removedAt: true, driftCount: true, approvedSha: true, approvedAt: true, appliedSha: true, appliedBehind: true, controller: true, lastError: true, sources: true },
          orderBy: { name: "asc" },
        });
  const applicationsOf = new Map<string, SnapshotApplication[]>();
  for (const e of perApplication) {
    const rows = apps.filter((a) => a.environmentId === e.id);
    // The same pause rule as the applications list and the environment card.
    const inputs = rollupInputs(rows, pauses.filter((p) => p.environmentId === e.id), now);
    applicationsOf.set(
      e.id,
      rows.map((a) => ({
        id: a.id,
        name: a.name,
        approvedSha: a.approvedSha,
        approvedAt: a.approvedAt,
        appliedSha: a.appliedSha,
        appliedBehind: a.appliedBehind,
        controller: (a.controller ?? null) as ControllerStatus | null,
        paused: inputs.get(a.id)!.paused,
        sourceUrls: sourceUrlsOf(a.sources),
      })),
    );
  }
  const contains = new Map<string, boolean>();
  for (const e of envs) {
    if (applicationsOf.has(e.id)) continue; // its applications' ancestry is the collector's appliedBehind
    if (e.approvedSha && e.appliedSha && e.approvedSha !== e.appliedSha) contains.set(e.id, await revisionContains(db, e.appliedSha, e.approvedSha));
  }
  return {
    environments: envs.map((e) => {
      const spec = (e.spec ?? {}) as { interval?: unknown; staleAfter?: unknown; confirmPause?: unknown };
      return {
        id: e.id,
        name: e.name,
        intervalMs: num(spec.interval, 60_000),
        staleAfterMs: num(spec.staleAfter, 600_000),
        critical: spec.confirmPause === true,
        approvedSha: e.approvedSha,
        approvedAt: e.approvedAt,
        appliedSha: e.appliedSha,
        appliedContainsApproved: contains.get(e.id) ?? false,
        appliedSince: e.appliedSince,
        controller: (e.controller ?? null) as ControllerStatus | null,
        lastError: (e.lastError ?? null) as EnvironmentError | null,
        lastCollectedAt: e.lastCollectedAt,
        lastGoodCollectedAt: e.lastGoodCollectedAt,
        ...(applicationsOf.has(e.id) ? { applications: applicationsOf.get(e.id) } : {}),
      };
    }),
    openDrift: drift.map((d) => ({ id: d.id, environmentId: d.environmentId, key: d.key, type: d.type, openedAt: d.openedAt, claimed: d.claims.length > 0 })),
    activeClaims: claims.map((c) => ({
      id: c.id,
      owner: c.owner.username,
      reason: c.reason,
      expiresAt: c.expiresAt,
      environmentIds: [...new Set(c.items.map((i) => i.driftItem.environmentId))],
      keys: c.items.map((i) => i.driftItem.key).sort(),
    })),
    activePauses: pauses.map((p) => ({
      id: p.id,
      environmentId: p.environmentId,
      origin: p.origin,
      owner: p.owner?.username ?? null,
      reason: p.reason,
      expiresAt: p.expiresAt,
      controllerRef: p.controllerRef,
      detectedManager: p.detectedManager,
      detectedAt: p.detectedAt,
      startedAt: p.startedAt,
      applicationId: p.applicationId,
    })),
  };
}

/**
 * Load, evaluate, sync: what the collector calls after each run (with the
 * environment's id) and what a periodic sweep calls with null. Claims that
 * span environments are only evaluated by the sweep.
 */
export async function refreshAlerts(db: Db, environmentId: string | null, now: Date = new Date(), opts: SyncOptions = {}): Promise<SyncResult> {
  const snapshot = await loadAlertSnapshot(db, environmentId, now);
  return syncAlerts(db, environmentId, evaluateAlerts(snapshot, now), now, opts);
}

/** An alert as the API answers it (lib/api/contract/alerts.ts). */
export type AlertDto = AlertRecordDto;

export async function listAlerts(
  db: Db,
  filter: { open?: boolean; environment?: string; limit?: number } = {},
  runbooks: Record<string, string> = {},
): Promise<AlertDto[]> {
  const rows = await db.alert.findMany({
    where: {
      ...(filter.open === undefined ? {} : filter.open ? { resolvedAt: null } : { resolvedAt: { not: null } }),
      ...(filter.environment ? { environment: { name: filter.environment } } : {}),
    },
    include: { environment: { select: { name: true } } },
    orderBy: [{ resolvedAt: { sort: "desc", nulls: "first" } }, { openedAt: "desc" }],
    take: Math.min(filter.limit ?? 200, 1000),
  });
  return rows.map((r) => {
    const details = (r.details ?? {}) as Record<string, unknown>;
    return {
      id: r.id,
      type: r.type as AlertType,
      severity: r.severity as Severity,
      title: r.title,
      environment: r.environment?.name ?? null,
      details,
      runbook: runbookFor(r.type as AlertType, details, runbooks),
      openedAt: r.openedAt.toISOString(),
      updatedAt: r.updatedAt.toISOString(),
      resolvedAt: r.resolvedAt?.toISOString() ?? null,
      notifiedAt: r.notifiedAt?.toISOString() ?? null,
    };
  });
}

/**
 * Whether `descendant` contains `ancestor` by Git ancestry, from the ingested
 * revisions (a controller that reports the branch tip after a commit elsewhere
 * in the repository is not behind).
 */
async function revisionContains(db: Db, descendant: string, ancestor: string): Promise<boolean> {
  const rows = await db.$queryRaw<Array<{ found: boolean }>>`
    WITH RECURSIVE anc(sha, parents) AS (
      SELECT sha, parents FROM "Revision" WHERE sha = ${descendant}
      UNION
      SELECT r.sha, r.parents FROM "Revision" r JOIN anc ON r.sha = ANY(anc.parents)
    )
    SELECT EXISTS (SELECT 1 FROM anc WHERE sha = ${ancestor}) AS found`;
  return rows[0]?.found === true;
}
