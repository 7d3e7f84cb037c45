// Database rows → DTOs. The only place that reads the JSON columns the
// collector writes, defensively: a column from an older collector version
// must degrade to "unknown", never break a page.
import type { ControllerStatus, EnvironmentError, RolloutStatus, RolloutSummary, RunError, RunProgress } from "@/lib/domain/types";
import { summariseRollout } from "@/lib/kube/rollout";
import { HIDDEN } from "./yaml-diff";
import { partsOfKey } from "./object-key";
import type { AlertDto, ChangeDto, ClaimRefDto, DriftItemDto, ManagerClassName, PauseDto, RunDto, UserRefDto } from "@/lib/api/contract";

type Obj = Record<string, unknown>;
export const rec = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});
export const str = (v: unknown): string | null => (typeof v === "string" && v.length > 0 ? v : null);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
export const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

export interface EnvSpec {
  description: string | null;
  render: string | null;
  intervalMs: number;
  staleAfterMs: number;
  controller: { type: "flux" | "argocd"; kind?: "Kustomization" | "HelmRelease"; namespace: string; name: string } | null;
}

/** Environment.spec is the environment's driftwatch.yaml entry, durations already in ms. Credentials are never read from it here. */
export function envSpec(spec: unknown): EnvSpec {
  const s = rec(spec);
  const c = rec(s.controller);
  const type = c.type === "flux" || c.type === "argocd" ? c.type : null;
  return {
    description: str(s.description),
    render: str(rec(s.source).render),
    intervalMs: num(s.interval) ?? 60_000,
    staleAfterMs: num(s.staleAfter) ?? 600_000,
    controller: type ? { type, ...(c.kind === "HelmRelease" ? { kind: "HelmRelease" as const } : {}), namespace: str(c.namespace) ?? "", name: str(c.name) ?? "" } : null,
  };
}

export function controllerStatus(v: unknown): ControllerStatus | null {
  const c = rec(v);
  if (c.type !== "flux" && c.type !== "argocd") return null;
  return {
    ...(c as unknown as ControllerStatus),
    conditions: Array.isArray(c.conditions) ? (c.conditions as ControllerStatus["conditions"]) : [],
    history: Array.isArray(c.history) ? (c.history as ControllerStatus["history"]) : [],
    inventory: [],
  };
}

/** A stored rollout summary (summariseRollout); a bare list is how releases before it stored every workload. */
export function rolloutSummary(v: unknown): RolloutSummary {
  const list = (x: unknown) => (Array.isArray(x) ? (x.filter((r) => str(rec(r).key)) as RolloutStatus[]) : []);
  if (Array.isArray(v)) return summariseRollout(list(v));
  const s = rec(v);
  const workloads = list(s.workloads);
  return { total: num(s.total) ?? workloads.length, rollingOut: num(s.rollingOut) ?? workloads.filter((w) => !w.rolledOut).length, workloads };
}

export function environmentError(v: unknown): EnvironmentError | null {
  const e = rec(v);
  const message = str(e.message);
  if (!message) return null;
  return { category: (str(e.category) ?? "internal") as EnvironmentError["category"], message, at: str(e.at) ?? new Date(0).toISOString(), runId: num(e.runId) ?? 0 };
}

interface UserRow {
  id: string;
  username: string;
  displayName: string | null;
}
export const userRef = (u: UserRow | null | undefined): UserRefDto | null => (u ? { id: u.id, username: u.username, displayName: u.displayName } : null);

export interface PauseRow {
  id: string;
  controllerRef: string | null;
  origin: "dashboard" | "detected";
  reason: string | null;
  incidentUrl: string | null;
  startedAt: Date;
  expiresAt: Date | null;
  executed: boolean;
  detectedManager: string | null;
  detectedAt: Date | null;
  endedAt: Date | null;
  endReason: string | null;
  ownerId: string | null;
  createdBy: UserRow | null;
  owner: UserRow | null;
}

export function pauseDto(environment: string, p: PauseRow, now: Date): PauseDto {
  return {
    id: p.id,
    environment,
    controllerRef: p.controllerRef,
    origin: p.origin,
    unattributed: p.origin === "detected" && p.ownerId === null,
    createdBy: userRef(p.createdBy),
    owner: userRef(p.owner),
    reason: p.reason,
    incidentUrl: p.incidentUrl,
    startedAt: p.startedAt.toISOString(),
    expiresAt: iso(p.expiresAt),
    expired: p.expiresAt !== null && p.expiresAt.getTime() < now.getTime(),
    executed: p.executed,
    detectedManager: p.detectedManager,
    detectedAt: iso(p.detectedAt),
    endedAt: iso(p.endedAt),
    endReason: p.endReason,
  };
}

export interface AlertRow {
  id: string;
  type: string;
  severity: string;
  title: string;
  details: unknown;
  openedAt: Date;
  updatedAt: Date;
}

export function alertDto(environment: string | null, a: AlertRow): AlertDto {
  const d = rec(a.details);
  return {
    id: a.id,
    environment,
    type: a.type,
    severity: a.severity,
    title: a.title,
    application: str(d.application),
    openedAt: a.openedAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
    runbook: str(d.runbook) ?? str(d.runbookUrl) ?? str(rec(d.runbook).url) ?? str(rec(d.runbook).text),
    summary: str(d.summary) ?? str(d.message),
  };
}

export interface RunRow {
  id: number;
  status: RunDto["status"];
  trigger: string;
  requestedBy: string | null;
  queuedAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  progress: unknown;
  stats: unknown;
  errors: unknown;
}

export function runDto(environment: string, r: RunRow): RunDto {
  const p = rec(r.progress);
  const s = rec(r.stats);
  const drift = rec(s.drift);
  return {
    id: r.id,
    environment,
    status: r.status,
    trigger: r.trigger,
    requestedBy: r.requestedBy,
    queuedAt: r.queuedAt.toISOString(),
    startedAt: iso(r.startedAt),
    finishedAt: iso(r.finishedAt),
    progress: str(p.phase)
      ? { phase: p.phase as RunProgress["phase"], objectsRead: num(p.objectsRead) ?? 0, kindsDone: num(p.kindsDone) ?? 0, kindsTotal: num(p.kindsTotal) ?? 0 }
      : null,
    stats: r.stats
      ? {
          durationMs: num(s.durationMs),
          desired: num(s.desired),
          live: num(s.live),
          drift: s.drift ? { Modified: num(drift.Modified) ?? 0, Missing: num(drift.Missing) ?? 0, Extra: num(drift.Extra) ?? 0 } : null,
          ignored: num(s.ignored),
          objectsChanged: num(s.objectsChanged),
        }
      : null,
    errors: Array.isArray(r.errors)
      ? r.errors
          .map(rec)
          .filter((e) => str(e.message))
          .map((e) => ({
            category: (str(e.category) ?? "internal") as RunError["category"],
            message: str(e.message) ?? "",
            ...(str(e.path) ? { path: str(e.path)! } : {}),
            ...(num(e.line) !== null ? { line: num(e.line)! } : {}),
            ...(str(e.resource) ? { resource: str(e.resource)! } : {}),
            ...(e.severity === "warning" || e.severity === "error" ? { severity: e.severity } : {}),
          }))
      : [],
  };
}

const CLASSES: readonly ManagerClassName[] = ["human", "controller", "system", "unknown"];
const managerClass = (v: unknown): ManagerClassName => (CLASSES.includes(v as ManagerClassName) ? (v as ManagerClassName) : "unknown");

/** A Secret's values never leave the server, even hashed or marked: the change says *that* it changed. */
export function changeDtos(changes: unknown, secret: boolean): ChangeDto[] {
  if (!Array.isArray(changes)) return [];
  return changes.map((raw) => {
    const c = rec(raw);
    const a = rec(c.attribution);
    const masked = c.masked === true || secret;
    const kind = c.kind === "added" || c.kind === "removed" || c.kind === "unpruned" ? c.kind : "changed";
    const out: ChangeDto = {
      path: Array.isArray(c.path) ? c.path.filter((p): p is string | number => typeof p === "string" || typeof p === "number") : [],
      display: str(c.display) ?? "",
      kind,
      attribution: { manager: str(a.manager), operation: str(a.operation), subresource: str(a.subresource), time: str(a.time), class: managerClass(a.class) },
    };
    if ("desired" in c) out.desired = masked ? HIDDEN : c.desired;
    if ("live" in c) out.live = masked ? HIDDEN : c.live;
    if (masked) out.masked = true;
    return out;
  });
}

export interface DriftRow {
  id: string;
  key: string;
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  /** The name of the application the item belongs to, where the query joined it. */
  applicationName?: string | null;
  type: "Modified" | "Missing" | "Extra";
  changes: unknown;
  ignored: unknown;
  conflict: unknown;
  attributionManager: string | null;
  attributionClass: string | null;
  attributionTime: Date | null;
  openedAt: Date;
  lastSeenAt: Date;
  resolvedAt: Date | null;
  resolution: "reverted" | "adopted" | "deleted" | "ignored" | null;
  resolutionSha: string | null;
  reopenCount: number;
}

export interface ClaimRow {
  id: string;
  reason: string;
  incidentUrl: string | null;
  expiresAt: Date;
  returnPath: "revert" | "adopt";
  owner: UserRow;
}

export function claimRef(c: ClaimRow, now: Date): ClaimRefDto {
  return {
    id: c.id,
    owner: userRef(c.owner)!,
    reason: c.reason,
    incidentUrl: c.incidentUrl,
    expiresAt: c.expiresAt.toISOString(),
    expired: c.expiresAt.getTime() < now.getTime(),
    returnPath: c.returnPath,
  };
}

export function driftItemDto(environment: string, d: DriftRow, claim: ClaimRefDto | null): DriftItemDto {
  const ignored: Record<string, number> = {};
  for (const [k, v] of Object.entries(rec(d.ignored))) if (typeof v === "number") ignored[k] = v;
  // The collector stores { owners: [...history], detected: {path, managers, flips} | null }; only a detected fight counts.
  const stored = rec(d.conflict);
  const detected = "owners" in stored ? stored.detected : d.conflict;
  const conflict = rec(detected);
  return {
    id: d.id,
    environment,
    key: d.key,
    apiVersion: d.apiVersion,
    group: partsOfKey(d.key)?.group ?? "",
    kind: d.kind,
    namespace: d.namespace,
    name: d.name,
    application: d.applicationName ?? null,
    type: d.type,
    changes: changeDtos(d.changes, d.kind === "Secret"),
    attribution: { manager: d.attributionManager, class: d.attributionClass ? managerClass(d.attributionClass) : null, time: iso(d.attributionTime) },
    ignored,
    conflict: detected
      ? { path: str(conflict.path), managers: Array.isArray(conflict.managers) ? conflict.managers.filter((m): m is string => typeof m === "string") : [], flips: num(conflict.flips) ?? 0 }
      : null,
    openedAt: d.openedAt.toISOString(),
    lastSeenAt: d.lastSeenAt.toISOString(),
    resolvedAt: iso(d.resolvedAt),
    resolution: d.resolution,
    resolutionSha: d.resolutionSha,
    reopenCount: d.reopenCount,
    claim,
  };
}
