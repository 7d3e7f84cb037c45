// Drift item rows as a run writes them: the bounded history of who owned each
// drifted field (and the fight detected from it), and the one-statement
// INSERT and UPDATE of new and changed items. Called by persistRun.
import { detectFieldConflicts, type Change, type Attribution, type DriftItemUpdate, type NewDriftItem } from "@/lib/drift";
import type { Tx } from "./store";

/**
 * DriftItem.conflict: who owned each drifted field at each collection (a
 * bounded history), and the fight detected from it or from reopenings.
 */
export interface StoredConflict {
  owners: Array<Record<string, string>>;
  detected: { path: string; managers: string[]; flips: number } | null;
}

const OWNER_HISTORY = 20;

export function nextConflict(previous: StoredConflict | null, changes: readonly Change[], reopen: StoredConflict["detected"] = null): StoredConflict {
  const snapshot: Record<string, string> = {};
  for (const c of changes) if (c.attribution.manager) snapshot[c.display] = c.attribution.manager;
  const owners = [...(previous?.owners ?? []), snapshot].slice(-OWNER_HISTORY);
  const field = detectFieldConflicts(owners)[0];
  return { owners, detected: field ? { path: field.path, managers: [...field.managers], flips: field.flips } : (reopen ?? previous?.detected ?? null) };
}

export interface NewDriftRow {
  id: string;
  applicationId: string;
  key: string;
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  item: NewDriftItem;
  conflict: StoredConflict;
}

const json = (v: unknown): string => JSON.stringify(v);
const attributionTime = (a: Attribution | null): string | null => (a?.time ? new Date(a.time).toISOString() : null);

/** New drift items, one statement (JSON passed as text, as the query builder would). */
export async function insertDriftItems(tx: Tx, environmentId: string, rows: NewDriftRow[], now: Date): Promise<void> {
  if (rows.length === 0) return;
  await tx.$executeRaw`
    INSERT INTO "DriftItem" (id, "environmentId", "applicationId", key, "apiVersion", kind, namespace, name, type, changes, ignored, "openedAt", "lastSeenAt", "reopenCount", conflict,
                             "attributionManager", "attributionClass", "attributionTime")
    SELECT id::uuid, ${environmentId}::uuid, app::uuid, k, av, ki, ns, n, ty::"DriftType", ch::jsonb, ig::jsonb, ${now}, ${now}, rc, co::jsonb, am, ac, at::timestamptz
    FROM unnest(${rows.map((r) => r.id)}::text[], ${rows.map((r) => r.applicationId)}::text[], ${rows.map((r) => r.key)}::text[], ${rows.map((r) => r.apiVersion)}::text[], ${rows.map((r) => r.kind)}::text[],
                ${rows.map((r) => r.namespace)}::text[], ${rows.map((r) => r.name)}::text[], ${rows.map((r) => r.item.type)}::text[],
                ${rows.map((r) => json(r.item.changes))}::text[], ${rows.map((r) => json(r.item.ignored))}::text[], ${rows.map((r) => r.item.reopenCount)}::int[],
                ${rows.map((r) => json(r.conflict))}::text[], ${rows.map((r) => r.item.attribution?.manager ?? null)}::text[],
                ${rows.map((r) => r.item.attribution?.class ?? null)}::text[], ${rows.map((r) => attributionTime(r.item.attribution))}::text[])
      AS t(id, app, k, av, ki, ns, n, ty, ch, ig, rc, co, am, ac, at)`;
}

/** Open drift items whose content changed (type, fields, attribution), one statement. */
export async function updateDriftContent(tx: Tx, rows: Array<{ u: DriftItemUpdate; conflict: StoredConflict }>, now: Date): Promise<void> {
  if (rows.length === 0) return;
  await tx.$executeRaw`
    UPDATE "DriftItem" d SET type = t.ty::"DriftType", changes = t.ch::jsonb, ignored = t.ig::jsonb, "lastSeenAt" = ${now},
      "attributionManager" = t.am, "attributionClass" = t.ac, "attributionTime" = t.at::timestamptz, conflict = t.co::jsonb
    FROM unnest(${rows.map((r) => r.u.id)}::text[], ${rows.map((r) => r.u.type)}::text[], ${rows.map((r) => json(r.u.changes))}::text[],
                ${rows.map((r) => json(r.u.ignored))}::text[], ${rows.map((r) => r.u.attribution?.manager ?? null)}::text[],
                ${rows.map((r) => r.u.attribution?.class ?? null)}::text[], ${rows.map((r) => attributionTime(r.u.attribution))}::text[],
                ${rows.map((r) => json(r.conflict))}::text[])
      AS t(id, ty, ch, ig, am, ac, at, co)
    WHERE d.id = t.id::uuid`;
}
