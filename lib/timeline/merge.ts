// One chronological stream out of the audit log and the commits: what an
// incident commander reads top to bottom. Pure: rows in, events out.
import type { AuditEventDto } from "@/lib/audit/query";
import { objectLabel, objectPagePath, partsOfKey } from "@/lib/dashboard/object-key";

export const TIMELINE_TYPES = ["commit", "approved", "applied", "drift", "pause", "claim", "alert", "collection", "access"] as const;
export type TimelineType = (typeof TIMELINE_TYPES)[number];

export const TIMELINE_TYPE_LABELS: Record<TimelineType, string> = {
  commit: "Commits",
  approved: "Approved revisions",
  applied: "Applied revisions",
  drift: "Drift",
  pause: "Pauses",
  claim: "Claims",
  alert: "Alerts",
  collection: "Collection",
  access: "Sign-ins and webhooks",
};

export interface TimelineEvent {
  /** Stable across requests: "audit:<id>" or "commit:<sha>". */
  id: string;
  at: string;
  type: TimelineType;
  /** The audit action ("drift.opened", …) or "commit". */
  action: string;
  /** The environment it happened in; for a commit, the first environment whose path it touches. */
  environment: string | null;
  /** Environments whose path a commit touches; for other events, [environment] or []. */
  environments: string[];
  actor: string;
  title: string;
  detail: string | null;
  reason: string | null;
  sha: string | null;
  /** A page of this app that shows more, relative to its root. */
  link: string | null;
}

/** The audit fields the timeline reads (the chain's hashes are not its business). */
export type AuditEventInput = Omit<AuditEventDto, "actorId" | "prevHash" | "hash">;

export interface CommitInput {
  sha: string;
  committedAt: string;
  authorName: string;
  message: string;
  /** Environments (in promotion order) whose path this commit changes. */
  environments: string[];
}

export interface TimelineFilter {
  environment?: string | null;
  types?: readonly TimelineType[] | null;
  from?: string | null;
  to?: string | null;
}

type Obj = Record<string, unknown>;
const rec = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});
function str(o: Obj, ...names: string[]): string | null {
  for (const n of names) {
    const v = o[n];
    if (typeof v === "string" && v.length > 0) return v;
    if (typeof v === "number") return String(v);
  }
  return null;
}
const short = (sha: string | null) => (sha ? sha.slice(0, 7) : "?");
/** Times inside a sentence: readable, and explicit about the zone. */
const stamp = (iso: string) => (Number.isNaN(Date.parse(iso)) ? iso : new Date(iso).toISOString().slice(0, 16).replace("T", " ") + " UTC");
const firstLine = (s: string) => s.split("\n", 1)[0] ?? "";

export function typeOfAction(action: string): TimelineType {
  const head = action.split(".", 1)[0];
  switch (head) {
    case "drift":
      return "drift";
    case "pause":
      return "pause";
    case "claim":
      return "claim";
    case "alert":
      return "alert";
    case "run":
      return "collection";
    case "revision":
      return action === "revision.approved" ? "approved" : "applied";
    default:
      return "access";
  }
}

function changedFields(o: Obj): string[] {
  const changes = o.changes ?? o.fields;
  if (!Array.isArray(changes)) return [];
  return changes
    .map((c) => (typeof c === "string" ? c : str(rec(c), "display", "path")))
    .filter((c): c is string => c !== null);
}

/** The collector names the object in `reason` (its targetId is the drift item's id); others put it in after.key. */
function objectKeyOf(e: AuditEventInput): string | null {
  const key = str(rec(e.after), "key") ?? str(rec(e.before), "key");
  if (key) return key;
  if (partsOfKey(e.targetId)) return e.targetId;
  if (e.reason && /^(drift|claim)\./.test(e.action) && partsOfKey(e.reason)) return e.reason;
  return null;
}

function describe(e: AuditEventInput): { title: string; detail: string | null; sha: string | null; link: string | null } {
  const before = rec(e.before);
  const after = rec(e.after);
  const env = e.environment;
  const key = objectKeyOf(e);
  const what = key ? objectLabel(key) : e.targetId;
  const objectLink = env && key && partsOfKey(key) ? objectPagePath(env, key) : null;
  const envLink = env ? `/environments/${encodeURIComponent(env)}` : null;
  const join = (...parts: Array<string | null | false>) => parts.filter(Boolean).join(" · ") || null;
  // In an environment of several applications the collector names the one an event is about.
  const application = str(after, "application");
  const where = env ? (application ? `${application} in ${env}` : env) : "An environment";

  switch (e.action) {
    case "drift.opened": {
      const fields = changedFields(after);
      const manager = str(after, "attributionManager", "manager");
      return {
        title: `Drift opened: ${what}${str(after, "type") ? ` (${str(after, "type")})` : ""}`,
        detail: join(fields.length ? `changed ${fields.slice(0, 5).join(", ")}${fields.length > 5 ? ` and ${fields.length - 5} more` : ""}` : null, manager && `by manager ${manager}`),
        sha: null,
        link: objectLink,
      };
    }
    case "drift.resolved": {
      const how = str(after, "resolution", "how");
      const sha = str(after, "resolutionSha", "sha");
      return { title: `Drift resolved${how ? ` (${how})` : ""}: ${what}`, detail: sha ? `in commit ${short(sha)}` : null, sha, link: objectLink };
    }
    case "revision.applied": {
      const sha = str(after, "sha", "appliedSha", "revision") ?? (/^[0-9a-f]{7,64}$/.test(e.targetId) ? e.targetId : null);
      const prev = str(before, "sha", "appliedSha", "revision");
      const source = str(after, "source");
      return {
        title: `${where} now runs ${short(sha)}`,
        detail: join(prev && `was ${short(prev)}`, source && `reported by ${source}`),
        sha,
        link: sha ? `/commits/${sha}` : envLink,
      };
    }
    case "revision.approved": {
      const sha = str(after, "sha", "approvedSha", "revision") ?? (/^[0-9a-f]{7,64}$/.test(e.targetId) ? e.targetId : null);
      return { title: `${where} approved ${short(sha)}`, detail: str(after, "message"), sha, link: sha ? `/commits/${sha}` : envLink };
    }
    case "pause.created":
    case "pause.detected":
    case "pause.claimed":
    case "pause.ended": {
      const scope = str(after, "controllerRef") ?? str(before, "controllerRef");
      const until = str(after, "expiresAt");
      const manager = str(after, "detectedManager", "manager");
      const titles: Record<string, string> = {
        "pause.created": "Reconciliation paused",
        "pause.detected": "Unattributed pause detected",
        "pause.claimed": "Pause taken over",
        "pause.ended": "Reconciliation resumed",
      };
      return {
        title: `${titles[e.action]}${scope ? `: ${scope}` : env ? `: ${env}` : ""}`,
        detail: join(until && e.action !== "pause.ended" && `until ${stamp(until)}`, manager && `manager ${manager}`, str(after, "endReason")),
        sha: null,
        link: envLink,
      };
    }
    case "alert.opened":
    case "alert.resolved": {
      const title = str(after, "title") ?? str(before, "title") ?? e.targetId;
      return {
        title: `${e.action === "alert.opened" ? "Alert" : "Alert resolved"}: ${title}`,
        detail: str(after, "message", "summary", "severity"),
        sha: null,
        link: envLink,
      };
    }
    case "run.failed":
      return { title: `Collection failed${env ? ` for ${env}` : ""}`, detail: str(after, "message", "error") ?? str(rec(after.error), "message"), sha: null, link: envLink };
    case "run.recovered":
      return { title: `Collection recovered${env ? ` for ${env}` : ""}`, detail: null, sha: null, link: envLink };
    case "run.requested":
      return { title: `Refresh requested${env ? ` for ${env}` : ""}`, detail: null, sha: null, link: envLink };
    default: {
      if (e.action.startsWith("claim.")) {
        const verb = e.action.slice("claim.".length);
        const owner = str(after, "owner", "ownerName");
        const path = str(after, "returnPath");
        return {
          title: `Divergence ${verb === "created" ? "claimed" : verb}${key ? `: ${what}` : ""}`,
          detail: join(owner && `owner ${owner}`, path && `return path ${path}`, str(after, "expiresAt") && `until ${stamp(str(after, "expiresAt")!)}`),
          sha: str(after, "resolutionSha"),
          link: objectLink ?? envLink,
        };
      }
      return { title: `${e.action.replace(/[._]/g, " ")}${e.targetId ? `: ${e.targetId}` : ""}`, detail: null, sha: null, link: null };
    }
  }
}

export function fromAuditEvent(e: AuditEventInput): TimelineEvent {
  const d = describe(e);
  return {
    id: `audit:${e.id}`,
    at: e.at,
    type: typeOfAction(e.action),
    action: e.action,
    environment: e.environment,
    environments: e.environment ? [e.environment] : [],
    actor: e.actorType === "system" && !e.actorName ? "system" : e.actorName || e.actorType,
    title: d.title,
    detail: d.detail,
    reason: e.reason && e.reason === objectKeyOf(e) ? null : e.reason,
    sha: d.sha,
    link: d.link,
  };
}

export function fromCommit(c: CommitInput): TimelineEvent {
  return {
    id: `commit:${c.sha}`,
    at: c.committedAt,
    type: "commit",
    action: "commit",
    environment: c.environments[0] ?? null,
    environments: c.environments,
    actor: c.authorName,
    title: `Commit ${short(c.sha)}: ${firstLine(c.message)}`,
    detail: c.environments.length ? `changes ${c.environments.join(", ")}` : null,
    reason: null,
    sha: c.sha,
    link: `/commits/${c.sha}`,
  };
}

function keep(e: TimelineEvent, f: TimelineFilter): boolean {
  if (f.environment && !e.environments.includes(f.environment)) return false;
  if (f.types && f.types.length > 0 && !f.types.includes(e.type)) return false;
  const t = Date.parse(e.at);
  if (f.from && t < Date.parse(f.from)) return false;
  if (f.to && t > Date.parse(f.to)) return false;
  return true;
}

/** Oldest first; events at the same instant keep a stable order (commits before what they caused). */
export function mergeTimeline(audit: readonly AuditEventInput[], commits: readonly CommitInput[], filter: TimelineFilter = {}): TimelineEvent[] {
  const events = [...commits.map(fromCommit), ...audit.map(fromAuditEvent)].filter((e) => keep(e, filter));
  const rank = (e: TimelineEvent) => (e.type === "commit" ? 0 : 1);
  return events.sort((a, b) => Date.parse(a.at) - Date.parse(b.at) || rank(a) - rank(b) || a.id.localeCompare(b.id, "en", { numeric: true }));
}
