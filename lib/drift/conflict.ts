// Fighting reconcilers: two writers taking one field from each other (an HPA
// and Git both setting replicas, two controllers on one object, a person
// re-applying by hand while the controller reverts). Visible as ownership of
// a field alternating between managers across collections, or as a drift
// item that keeps reopening.

import { displayFieldsV1Path, OwnershipIndex } from "./managed-fields";
import type { KubeObject, ObjectKey } from "./types";

export interface FieldConflict {
  /** Display path, e.g. `spec.replicas`. */
  path: string;
  /** The two managers taking the field from each other, in order of first ownership. */
  managers: [string, string];
  /** How many times ownership changed hands between them. */
  flips: number;
}

/**
 * Who owns each field of a live object (display path → manager). Shared
 * ownership goes to the most recent entry: that is the writer who last took it.
 */
export function fieldOwners(live: Pick<KubeObject, "metadata">): Map<string, string> {
  const index = OwnershipIndex.fromManagedFields(live.metadata.managedFields);
  const out = new Map<string, string>();
  for (const { keys, owners } of index.allOwned()) {
    let best: { manager: string; time: string } | null = null;
    for (const i of owners) {
      const e = index.entries[i];
      if (!e?.manager) continue;
      const time = e.time ?? "";
      if (!best || time > best.time) best = { manager: e.manager, time };
    }
    if (best) out.set(displayFieldsV1Path(keys), best.manager);
  }
  return out;
}

export type OwnershipSnapshot = ReadonlyMap<string, string> | Readonly<Record<string, string>> | Pick<KubeObject, "metadata">;

function toMap(s: OwnershipSnapshot): ReadonlyMap<string, string> {
  if (s instanceof Map) return s;
  const maybeObject = s as { metadata?: unknown };
  if (maybeObject.metadata && typeof maybeObject.metadata === "object") return fieldOwners(s as Pick<KubeObject, "metadata">);
  return new Map(Object.entries(s as Record<string, string>));
}

export interface ConflictOptions {
  /** Hand-overs between the same two managers needed to call it a fight (default 2: a→b→a). */
  minFlips?: number;
  /** Only these paths (display strings); all when absent. */
  paths?: readonly string[];
}

/**
 * Successive snapshots (oldest first) of who owns which field → fields whose
 * owner went back and forth between two managers. A snapshot may be a live
 * object (its managedFields are read) or a display-path → manager map.
 */
export function detectFieldConflicts(snapshots: readonly OwnershipSnapshot[], opts: ConflictOptions = {}): FieldConflict[] {
  const minFlips = opts.minFlips ?? 2;
  const only = opts.paths ? new Set(opts.paths) : null;
  const sequences = new Map<string, string[]>();
  for (const snap of snapshots) {
    for (const [path, manager] of toMap(snap)) {
      if (only && !only.has(path)) continue;
      let seq = sequences.get(path);
      if (!seq) sequences.set(path, (seq = []));
      if (seq[seq.length - 1] !== manager) seq.push(manager);
    }
  }
  const out: FieldConflict[] = [];
  for (const [path, seq] of sequences) {
    if (seq.length < 2) continue;
    // Count hand-overs per unordered pair; a fight needs both directions.
    const pairs = new Map<string, { a: string; b: string; flips: number; back: boolean }>();
    for (let i = 1; i < seq.length; i++) {
      const from = seq[i - 1] as string;
      const to = seq[i] as string;
      const id = from < to ? `${from}\u0000${to}` : `${to}\u0000${from}`;
      const p = pairs.get(id);
      if (!p) pairs.set(id, { a: from, b: to, flips: 1, back: false });
      else {
        p.flips++;
        if (from === p.b) p.back = true;
      }
    }
    let best: { a: string; b: string; flips: number } | null = null;
    for (const p of pairs.values()) if (p.back && p.flips >= minFlips && (!best || p.flips > best.flips)) best = p;
    if (best) out.push({ path, managers: [best.a, best.b], flips: best.flips });
  }
  return out.sort((x, y) => y.flips - x.flips || x.path.localeCompare(y.path));
}

export interface DriftEpisode {
  key: ObjectKey;
  openedAt: string;
  resolvedAt: string | null;
  resolution: "reverted" | "adopted" | "deleted" | "ignored" | null;
  /** Managers the episode's changes were attributed to. */
  managers: readonly (string | null)[];
  /** Display paths of the episode's changes. */
  paths: readonly string[];
}

export interface ReopenConflict extends FieldConflict {
  key: ObjectKey;
}

/**
 * Drift that keeps reopening: the same object drifts (someone writes), gets
 * reverted (the controller writes back), and drifts again. The managers are
 * the drifting writer and the environment's controller; flips counts the
 * hand-overs (every revert and every reopening).
 */
export function detectReopenConflicts(
  episodes: readonly DriftEpisode[],
  opts: { controllerManager: string; minReopens?: number; since?: string },
): ReopenConflict[] {
  const minReopens = opts.minReopens ?? 2;
  const byKey = new Map<ObjectKey, DriftEpisode[]>();
  for (const e of episodes) {
    if (opts.since && (e.resolvedAt ?? e.openedAt) < opts.since) continue;
    let list = byKey.get(e.key);
    if (!list) byKey.set(e.key, (list = []));
    list.push(e);
  }
  const out: ReopenConflict[] = [];
  for (const [key, list] of byKey) {
    list.sort((a, b) => a.openedAt.localeCompare(b.openedAt));
    let reverts = 0;
    let reopens = 0;
    const writers = new Map<string, number>();
    const paths = new Map<string, number>();
    list.forEach((e, i) => {
      if (e.resolution === "reverted") reverts++;
      if (i > 0 && list[i - 1]?.resolution === "reverted") reopens++;
      for (const m of e.managers) if (m && m !== opts.controllerManager) writers.set(m, (writers.get(m) ?? 0) + 1);
      for (const p of e.paths) paths.set(p, (paths.get(p) ?? 0) + 1);
    });
    if (reopens < minReopens) continue;
    const writer = [...writers.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? "unknown";
    const path = [...paths.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? "";
    out.push({ key, path, managers: [writer, opts.controllerManager], flips: reverts + reopens });
  }
  return out;
}
