// "Why does it work in staging?": two environments side by side, object by
// object and field by field, live vs live or Git vs Git. Identical blobs are
// recognised by hash and never loaded; only differing objects are diffed.
import microdiff from "microdiff";
import type { PrismaClient } from "@/lib/db/generated/client";
import { badRequest, notFound } from "@/lib/api/errors";
import { DEFAULT_INJECTED_PREFIXES, normalizeObject, type KubeObject } from "@/lib/drift";
import type { CompareApplicationDto, CompareDto, CompareFieldDto, CompareObjectDto, CompareQuery } from "@/lib/api/contract/compare";
import { findEnvironment } from "./environments";
import { partsOfKey } from "./object-key";
import { repoHistory, revisionDto } from "./revisions";
import { applicationCommits } from "./application-revisions";
import { HIDDEN, maskSecret, stripNoise } from "./yaml-diff";
import { inPromotionOrder } from "./environments";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
const isObj = (v: unknown): v is Record<string, Json> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Fields every cluster sets for itself: differing values there answer nothing. */
const CLUSTER_ASSIGNED = new Set(["clusterIP", "clusterIPs", "nodeName", "volumeName"]);

function comparable(body: unknown): Json {
  let v: unknown = body;
  const k = body as KubeObject;
  if (k && typeof k === "object" && typeof k.apiVersion === "string" && typeof k.kind === "string" && k.metadata?.name) {
    try {
      v = normalizeObject(k, { dropDefaults: true });
    } catch {
      v = body;
    }
  }
  const out = stripNoise(v);
  if (isObj(out) && isObj(out.metadata)) {
    const meta = { ...out.metadata };
    for (const f of ["labels", "annotations"] as const) {
      const m = meta[f];
      if (!isObj(m)) continue;
      const kept = Object.fromEntries(Object.entries(m).filter(([key]) => !DEFAULT_INJECTED_PREFIXES.some((p) => key.startsWith(p))));
      if (Object.keys(kept).length) meta[f] = kept;
      else delete meta[f];
    }
    out.metadata = meta;
  }
  if (isObj(out) && isObj(out.spec)) out.spec = Object.fromEntries(Object.entries(out.spec).filter(([key]) => !CLUSTER_ASSIGNED.has(key)));
  return byName(out);
}

/** Lists of named items (containers, env, ports) compare by name, not position. */
function byName(v: Json): Json {
  if (Array.isArray(v)) {
    const named = v.length > 0 && v.every((i) => isObj(i) && typeof i.name === "string");
    if (named) return Object.fromEntries(v.map((i) => [`[name=${(i as Record<string, Json>).name as string}]`, byName(i)]));
    return v.map(byName);
  }
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, byName(x)]));
  return v;
}

function display(path: Array<string | number>): string {
  return path.reduce<string>((acc, seg) => {
    if (typeof seg === "number") return `${acc}[${seg}]`;
    if (seg.startsWith("[")) return `${acc}${seg}`;
    const s = /^[A-Za-z_][A-Za-z0-9_-]*$/.test(seg) ? seg : `["${seg}"]`;
    return acc === "" ? s : s.startsWith("[") ? `${acc}${s}` : `${acc}.${s}`;
  }, "");
}

export function fieldDiff(a: unknown, b: unknown, secret: boolean): CompareFieldDto[] {
  const left = comparable(a);
  const right = comparable(b);
  if (!isObj(left) || !isObj(right)) return [];
  return microdiff(left, right).map((d) => {
    const hide = secret && (d.path[0] === "data" || d.path[0] === "stringData");
    const from = d.type === "CREATE" ? undefined : hide ? HIDDEN : (maskSecret(d.oldValue as Json) as unknown);
    const to = d.type === "REMOVE" ? undefined : hide ? HIDDEN : (maskSecret(d.value as Json) as unknown);
    return { path: display(d.path), from, to, kind: d.type === "CREATE" ? "added" : d.type === "REMOVE" ? "removed" : "changed" };
  });
}

export interface ComparedApplication {
  id: string;
  name: string;
  promotionKey: string;
  appliedSha: string | null;
  approvedSha: string | null;
  driftCount: number;
  objectCount: number;
  sources: unknown;
}

/**
 * The applications of two environments side by side, matched by promotion
 * key (an application is promoted under the same key from one environment to
 * the next), in the first environment's order, then the ones only the second has.
 */
export function matchApplications(from: readonly ComparedApplication[], to: readonly ComparedApplication[]): CompareApplicationDto[] {
  const side = (a: ComparedApplication | undefined) => (a ? { name: a.name, appliedSha: a.appliedSha, driftCount: a.driftCount, objectCount: a.objectCount } : null);
  const byKey = new Map(to.map((a) => [a.promotionKey, a]));
  const out: CompareApplicationDto[] = [];
  for (const a of from) {
    const b = byKey.get(a.promotionKey);
    byKey.delete(a.promotionKey);
    out.push({ promotionKey: a.promotionKey, from: side(a), to: side(b), sameRevision: Boolean(b && a.appliedSha && a.appliedSha === b.appliedSha) });
  }
  for (const b of byKey.values()) out.push({ promotionKey: b.promotionKey, from: null, to: side(b), sameRevision: false });
  return out;
}

const APPLICATION_SELECT = { id: true, name: true, promotionKey: true, appliedSha: true, approvedSha: true, driftCount: true, objectCount: true, sources: true } as const;

export async function compareEnvironments(db: PrismaClient, q: CompareQuery): Promise<CompareDto> {
  if (q.from === q.to) throw badRequest("from and to name the same environment; pick two different ones");
  const [a, b] = await Promise.all([findEnvironment(db, q.from), findEnvironment(db, q.to)]);
  const applicationsOf = (envId: string) => db.application.findMany({ where: { environmentId: envId, removedAt: null }, select: APPLICATION_SELECT, orderBy: { name: "asc" } });
  const [appsA, appsB] = await Promise.all([applicationsOf(a.id), applicationsOf(b.id)]);
  const chosenA = q.application === undefined ? undefined : appsA.find((x) => x.promotionKey === q.application);
  const chosenB = q.application === undefined ? undefined : appsB.find((x) => x.promotionKey === q.application);
  if (q.application !== undefined && !chosenA && !chosenB) throw notFound(`application "${q.application}" in ${a.name} or ${b.name}`);
  const table = q.mode === "live" ? db.liveObject : db.desiredObject;
  const select = { key: true, kind: true, namespace: true, name: true, blobHash: true } as const;
  // Narrowed to one application, a side that does not have it has no objects (everything is "only in" the other).
  const objectsOf = async (envId: string, app: ComparedApplication | undefined) =>
    q.application !== undefined && !app
      ? []
      : (table as typeof db.liveObject).findMany({ where: { environmentId: envId, ...(q.kind ? { kind: q.kind } : {}), ...(app ? { applicationId: app.id } : {}) }, select, orderBy: { key: "asc" } });
  const [rowsA, rowsB, envRows] = await Promise.all([
    objectsOf(a.id, chosenA),
    objectsOf(b.id, chosenB),
    db.environment.findMany({ ...inPromotionOrder, select: { name: true, id: true, appliedSha: true, approvedSha: true, repositoryId: true } }),
  ]);
  const mapB = new Map(rowsB.map((r) => [r.key, r]));
  const mapA = new Map(rowsA.map((r) => [r.key, r]));
  let same = 0;
  const differing: Array<{ key: string; ha: string; hb: string }> = [];
  const objects: CompareObjectDto[] = [];
  const only = (r: (typeof rowsA)[number], state: "only-from" | "only-to"): CompareObjectDto => ({ key: r.key, kind: r.kind, namespace: r.namespace, name: r.name, state, fields: [] });
  let onlyFrom = 0;
  let onlyTo = 0;
  for (const r of rowsA) {
    const o = mapB.get(r.key);
    if (!o) {
      onlyFrom++;
      objects.push(only(r, "only-from"));
    } else if (o.blobHash === r.blobHash) same++;
    else differing.push({ key: r.key, ha: r.blobHash, hb: o.blobHash });
  }
  for (const r of rowsB) {
    if (!mapA.has(r.key)) {
      onlyTo++;
      objects.push(only(r, "only-to"));
    }
  }
  // Blobs in batches: a large environment with many differences must not load everything at once.
  let differs = 0;
  let examined = 0;
  for (let i = 0; i < differing.length && objects.length < q.limit; i += 200) {
    const batch = differing.slice(i, i + 200);
    const blobs = await db.objectBlob.findMany({ where: { hash: { in: [...new Set(batch.flatMap((d) => [d.ha, d.hb]))] } }, select: { hash: true, body: true } });
    const body = new Map(blobs.map((x) => [x.hash, x.body]));
    for (const d of batch) {
      examined++;
      const parts = partsOfKey(d.key);
      const fields = fieldDiff(body.get(d.ha) ?? null, body.get(d.hb) ?? null, parts?.kind === "Secret" && parts.group === "");
      if (fields.length === 0) {
        same++;
        continue;
      }
      differs++;
      const r = mapA.get(d.key)!;
      if (objects.length < q.limit) objects.push({ key: d.key, kind: r.kind, namespace: r.namespace, name: r.name, state: "differs", fields });
    }
  }
  // Objects not diffed because the limit was reached: their blobs differ, so they count as differing.
  const remaining = differing.length - examined;
  const stateRank = { differs: 0, "only-from": 1, "only-to": 2 };
  objects.sort((x, y) => stateRank[x.state] - stateRank[y.state] || x.key.localeCompare(y.key));

  // Narrowed to one application, each side's revision is that application's (its own repository's commit). An
  // environment whose applications follow sources of their own has no revision of its own to show unnarrowed: the one
  // it stores is its first application's.
  const perApplication = (env: { repositoryId: string | null }) => q.application === undefined && env.repositoryId === null;
  const revisionFor = async (name: string, app: ComparedApplication | undefined) => {
    if (q.application !== undefined) {
      const sha = app?.appliedSha ?? app?.approvedSha ?? null;
      if (!app || !sha) return null;
      return (await applicationCommits(db, [app.sources])).revision(app.sources, sha);
    }
    const e = envRows.find((x) => x.name === name);
    const sha = e?.appliedSha ?? e?.approvedSha ?? null;
    if (!e || !sha || e.repositoryId === null) return null;
    const h = await repoHistory(db, e.repositoryId);
    return revisionDto(sha, h.commits.get(sha));
  };
  return {
    from: { environment: a.name, revision: await revisionFor(a.name, chosenA), perApplication: perApplication(a) },
    to: { environment: b.name, revision: await revisionFor(b.name, chosenB), perApplication: perApplication(b) },
    application: q.application ?? null,
    applications: matchApplications(appsA, appsB),
    mode: q.mode,
    objects: objects.slice(0, q.limit),
    same,
    differs: differs + remaining,
    onlyFrom,
    onlyTo,
    truncated: objects.length > q.limit || remaining > 0,
    environments: envRows.map((e) => e.name),
  };
}
