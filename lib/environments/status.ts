// The one-word answer to "is this environment all right?", derived from what
// the collector last wrote. Pure: every input is plain data, `now` included,
// so the card, the API and the tests agree on the same verdict.

export const ENVIRONMENT_STATUSES = ["Collection failing", "Paused", "Stale", "Drifted", "In sync", "Not collected yet"] as const;
export type EnvironmentStatus = (typeof ENVIRONMENT_STATUSES)[number];

export interface StatusPause {
  startedAt: string;
  expiresAt: string | null;
  endedAt: string | null;
  origin: "dashboard" | "detected";
}

export interface StatusInput {
  now: Date;
  /** Collection interval and stale threshold from the environment's spec, in ms. */
  intervalMs: number;
  staleAfterMs: number;
  lastCollectedAt: string | null;
  lastGoodCollectedAt: string | null;
  lastError: { message: string; at: string } | null;
  /** Since when the approved revision has not been contained in the applied one; null when not behind. */
  behindSince: string | null;
  /** For an environment of many applications: how many have not applied their approved revision. */
  behindApplications?: number;
  openDrift: number;
  pauses: StatusPause[];
  /** The controller reports itself suspended (Flux spec.suspend; Argo CD skip-reconcile, or automated sync switched off or removed though Git declares it — not manual sync by design), recorded or not. */
  controllerSuspended: boolean;
}

export interface StatusFlag {
  status: EnvironmentStatus;
  reason: string;
}

export interface StatusResult {
  /** The most urgent flag, shown as the environment's status. */
  status: EnvironmentStatus;
  reason: string;
  /** Every flag that applies, most urgent first ("Stale" and "Drifted" can both be true). */
  flags: StatusFlag[];
}

const ms = (iso: string | null): number | null => {
  if (!iso) return null;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : t;
};

/** "3m", "2h 5m", "4d 1h": short enough for a badge. */
export function formatAge(durationMs: number): string {
  // Clock skew between collector and viewer can make a duration negative; "0s" is more honest than "-3s".
  const s = Math.max(0, Math.floor(durationMs / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 ? `${h}h ${m % 60}m` : `${h}h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d}d ${h % 24}h` : `${d}d`;
}

/**
 * A collector that stopped writing is as bad as one that writes errors: after
 * three missed intervals (at least five minutes, so a slow run is not an alarm)
 * the data on screen can no longer be trusted.
 */
export function silenceThresholdMs(intervalMs: number): number {
  return Math.max(3 * intervalMs, 5 * 60_000);
}

export function deriveStatus(input: StatusInput): StatusResult {
  const now = input.now.getTime();
  const flags: StatusFlag[] = [];

  const lastCollected = ms(input.lastCollectedAt);
  const lastGood = ms(input.lastGoodCollectedAt);
  const errorAt = input.lastError ? ms(input.lastError.at) : null;

  if (input.lastError && (lastGood === null || (errorAt !== null && errorAt > lastGood))) {
    const since = errorAt !== null ? `; last good collection ${lastGood === null ? "never" : formatAge(now - lastGood) + " ago"}` : "";
    flags.push({ status: "Collection failing", reason: `${input.lastError.message}${since}` });
  } else if (lastCollected !== null && now - lastCollected > silenceThresholdMs(input.intervalMs)) {
    flags.push({
      status: "Collection failing",
      reason: `No collection for ${formatAge(now - lastCollected)} (interval ${formatAge(input.intervalMs)}): is the collector running?`,
    });
  }

  const active = input.pauses.filter((p) => p.endedAt === null && (ms(p.startedAt) ?? 0) <= now);
  if (active.length > 0) {
    const p = active[0]!;
    const until = ms(p.expiresAt);
    const expiry = until === null ? "no expiry" : until < now ? `expired ${formatAge(now - until)} ago` : `expires in ${formatAge(until - now)}`;
    const who = p.origin === "detected" ? "detected in the cluster, not recorded" : "from the dashboard";
    flags.push({ status: "Paused", reason: `Reconciliation paused ${formatAge(now - (ms(p.startedAt) ?? now))} ago (${who}; ${expiry})` });
  } else if (input.controllerSuspended) {
    flags.push({ status: "Paused", reason: "The controller reports reconciliation suspended" });
  }

  const behind = ms(input.behindSince);
  if (behind !== null && now - behind > input.staleAfterMs) {
    const n = input.behindApplications;
    const what = n === undefined ? "The approved revision has not been applied" : `${n} application${n === 1 ? " has" : "s have"} not applied the approved revision, the oldest`;
    flags.push({ status: "Stale", reason: `${what} for ${formatAge(now - behind)} (threshold ${formatAge(input.staleAfterMs)})` });
  }

  if (input.openDrift > 0) {
    flags.push({ status: "Drifted", reason: `${input.openDrift} object${input.openDrift === 1 ? "" : "s"} differ from Git` });
  }

  if (flags.length === 0) {
    if (lastCollected === null && lastGood === null) {
      return { status: "Not collected yet", reason: "Waiting for the first collection", flags: [] };
    }
    const catchingUp = behind !== null ? `; applying a newer revision (behind ${formatAge(now - behind)})` : "";
    const reason = `Live matches Git${catchingUp}`;
    return { status: "In sync", reason, flags: [{ status: "In sync", reason }] };
  }
  flags.sort((a, b) => ENVIRONMENT_STATUSES.indexOf(a.status) - ENVIRONMENT_STATUSES.indexOf(b.status));
  return { status: flags[0]!.status, reason: flags[0]!.reason, flags };
}
