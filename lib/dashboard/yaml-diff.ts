// Side-by-side YAML of desired vs live for the object page. Pure.
//
// What is highlighted must be what the drift engine reported, not every
// textual difference: live objects carry server defaults and metadata the
// engine already judged as noise. So live is pruned to the fields Git sets
// (plus the fields the engine reported as added), and each row's
// highlight comes from the drift item's changes, matched by path.
import { diffArrays } from "diff";
import YAML from "yaml";
import { NOISY_ANNOTATIONS, SERVER_METADATA_FIELDS } from "@/lib/drift/metadata-noise";
import type { ChangeDto, DiffRowDto } from "@/lib/api/contract";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Path = Array<string | number>;

export const HIDDEN = "(hidden)";

const isObj = (v: unknown): v is Record<string, Json> => typeof v === "object" && v !== null && !Array.isArray(v);


/** Drops what no person wants to read in a diff: status and server-owned metadata. */
export function stripNoise(obj: unknown): Json {
  if (!isObj(obj)) return (obj ?? null) as Json;
  const { status: _status, ...rest } = obj;
  const meta = rest.metadata;
  if (isObj(meta)) {
    const m: Record<string, Json> = {};
    for (const [k, v] of Object.entries(meta)) if (!SERVER_METADATA_FIELDS.includes(k)) m[k] = v;
    if (isObj(m.annotations)) {
      const a: Record<string, Json> = {};
      for (const [k, v] of Object.entries(m.annotations)) if (!NOISY_ANNOTATIONS.has(k)) a[k] = v;
      if (Object.keys(a).length) m.annotations = a;
      else delete m.annotations;
    }
    rest.metadata = m;
  }
  return rest;
}

/** Secret values never reach the browser, not even as hashes: every value under data/stringData becomes "(hidden)". */
export function maskSecret(obj: Json): Json {
  if (!isObj(obj) || obj.kind !== "Secret") return obj;
  const out: Record<string, Json> = { ...obj };
  for (const field of ["data", "stringData"]) {
    const v = out[field];
    if (isObj(v)) out[field] = Object.fromEntries(Object.keys(v).map((k) => [k, HIDDEN]));
  }
  return out;
}

function sameItem(a: Json, b: Json): boolean {
  return isObj(a) && isObj(b) && typeof a.name === "string" && a.name === b.name;
}

/** Keeps only what Git sets; list items are matched by `name` when they have one, else by position. */
export function pruneToDesired(live: Json, desired: Json): Json {
  if (isObj(live) && isObj(desired)) {
    const out: Record<string, Json> = {};
    for (const [k, v] of Object.entries(live)) if (k in desired) out[k] = pruneToDesired(v, desired[k]!);
    return out;
  }
  if (Array.isArray(live) && Array.isArray(desired)) {
    return live.map((item, i) => {
      const match = desired.find((d) => sameItem(d, item)) ?? desired[i];
      return match === undefined ? item : pruneToDesired(item, match);
    });
  }
  return live;
}

function getAt(v: Json, path: Path): Json | undefined {
  let cur: Json | undefined = v;
  for (const p of path) {
    if (Array.isArray(cur) && typeof p === "number") cur = cur[p];
    else if (isObj(cur) && typeof p === "string") cur = cur[p];
    else return undefined;
  }
  return cur;
}

function setAt(v: Json, path: Path, value: Json): void {
  let cur: Json = v;
  for (let i = 0; i < path.length - 1; i++) {
    const p = path[i]!;
    const next: Json | undefined = Array.isArray(cur) && typeof p === "number" ? cur[p] : isObj(cur) && typeof p === "string" ? cur[p] : undefined;
    if (next === undefined || next === null || typeof next !== "object") {
      const fresh: Json = typeof path[i + 1] === "number" ? [] : {};
      if (Array.isArray(cur) && typeof p === "number") cur[p] = fresh;
      else if (isObj(cur) && typeof p === "string") cur[p] = fresh;
      else return;
      cur = fresh;
    } else cur = next;
  }
  const last = path[path.length - 1];
  if (last === undefined) return;
  if (Array.isArray(cur) && typeof last === "number") cur[last] = value;
  else if (isObj(cur) && typeof last === "string") cur[last] = value;
}

/** Live as the engine saw it: pruned to Git's fields, with the fields it reported as added put back. */
export function normaliseLive(live: Json, desired: Json | null, changes: readonly ChangeDto[]): Json {
  if (desired === null) return live;
  const pruned = pruneToDesired(live, desired);
  for (const c of changes) {
    if (c.kind !== "added" && c.kind !== "unpruned" && c.kind !== "changed") continue;
    const v = getAt(live, c.path);
    if (v !== undefined && getAt(pruned, c.path) === undefined) setAt(pruned, c.path, structuredClone(v));
  }
  return pruned;
}

/**
 * Normalising spells quantities one way ("128Mi" becomes "134217728"): right
 * for comparing, hard to read. Where Git and live agree after normalising,
 * both sides show the value as written in Git again.
 */
export function preferGitSpelling(rawDesired: unknown, desired: Json, live: Json | null): { desired: Json; live: Json | null } {
  const walk = (raw: unknown, d: Json, l: Json | undefined): { d: Json; l: Json | undefined } => {
    if (isObj(d)) {
      const od: Record<string, Json> = {};
      const ol: Record<string, Json> | undefined = isObj(l) ? { ...l } : undefined;
      for (const [k, v] of Object.entries(d)) {
        const r = walk(isObj(raw) ? raw[k] : undefined, v, ol ? ol[k] : undefined);
        od[k] = r.d;
        if (ol && r.l !== undefined) ol[k] = r.l;
      }
      return { d: od, l: ol ?? l };
    }
    if (Array.isArray(d)) {
      const ll = Array.isArray(l) ? [...l] : undefined;
      const od = d.map((v, i) => {
        const r = walk(Array.isArray(raw) ? raw[i] : undefined, v, ll ? ll[i] : undefined);
        if (ll && r.l !== undefined && i < ll.length) ll[i] = r.l;
        return r.d;
      });
      return { d: od, l: ll ?? l };
    }
    if ((typeof raw === "string" || typeof raw === "number") && raw !== d && JSON.stringify(d) === JSON.stringify(l)) return { d: raw, l: raw };
    return { d, l };
  };
  const r = walk(rawDesired, desired, live ?? undefined);
  return { desired: r.d, live: live === null ? null : (r.l ?? live) };
}

export interface YamlLine {
  text: string;
  path: Path;
}

function scalar(v: Json): string {
  if (v === null) return "null";
  if (typeof v === "string") {
    const s = YAML.stringify(v, { lineWidth: 0 }).trimEnd();
    return s.includes("\n") ? JSON.stringify(v) : s;
  }
  return String(v);
}

const keyText = (k: string) => scalar(k);

const TOP_ORDER = ["apiVersion", "kind", "metadata", "spec", "data", "stringData", "type"];
const FIRST = ["name", "namespace"];

/**
 * jsonb hands keys back shortest first; people read manifests in the usual
 * order (apiVersion, kind, metadata, spec; `name` first in list items), and
 * both sides must share one order for the rows to line up.
 */
function orderedEntries(v: Record<string, Json>, top: boolean): Array<[string, Json]> {
  const pref = top ? TOP_ORDER : FIRST;
  const rank = (k: string) => {
    const i = pref.indexOf(k);
    return i < 0 ? pref.length : i;
  };
  return Object.entries(v).sort(([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

/** YAML text, one entry per line, each line knowing the field path it shows. */
export function yamlLines(value: Json): YamlLine[] {
  const out: YamlLine[] = [];
  const emit = (v: Json, path: Path, indent: number) => {
    const pad = " ".repeat(indent);
    if (isObj(v)) {
      for (const [k, child] of orderedEntries(v, path.length === 0)) {
        const p = [...path, k];
        if (typeof child === "string" && child.includes("\n")) {
          out.push({ text: `${pad}${keyText(k)}: |${child.endsWith("\n") ? "" : "-"}`, path: p });
          for (const l of child.replace(/\n$/, "").split("\n")) out.push({ text: `${pad}  ${l}`, path: p });
        } else if (isObj(child) && Object.keys(child).length > 0) {
          out.push({ text: `${pad}${keyText(k)}:`, path: p });
          emit(child, p, indent + 2);
        } else if (Array.isArray(child) && child.length > 0) {
          out.push({ text: `${pad}${keyText(k)}:`, path: p });
          emit(child, p, indent);
        } else {
          out.push({ text: `${pad}${keyText(k)}: ${isObj(child) ? "{}" : Array.isArray(child) ? "[]" : scalar(child)}`, path: p });
        }
      }
      return;
    }
    if (Array.isArray(v)) {
      v.forEach((item, i) => {
        const p = [...path, i];
        const start = out.length;
        if ((isObj(item) && Object.keys(item).length > 0) || (Array.isArray(item) && item.length > 0)) {
          emit(item, p, indent + 2);
          const first = out[start];
          if (first) first.text = `${pad}- ${first.text.slice(indent + 2)}`;
        } else {
          out.push({ text: `${pad}- ${isObj(item) ? "{}" : Array.isArray(item) ? "[]" : typeof item === "string" && item.includes("\n") ? JSON.stringify(item) : scalar(item)}`, path: p });
        }
      });
      return;
    }
    out.push({ text: `${pad}${scalar(v)}`, path });
  };
  emit(value, [], 0);
  return out;
}

const startsWith = (path: Path, prefix: Path) => prefix.length <= path.length && prefix.every((p, i) => path[i] === p);

function changeFor(path: Path, changes: readonly ChangeDto[], onlyKind?: ChangeDto["kind"]): number | null {
  let best: number | null = null;
  let bestLen = -1;
  changes.forEach((c, i) => {
    if ((onlyKind === undefined || c.kind === onlyKind) && startsWith(path, c.path) && c.path.length > bestLen) {
      best = i;
      bestLen = c.path.length;
    }
  });
  return best;
}

/**
 * Lines of both sides paired up: common lines (a shortest edit script, Myers'
 * algorithm from the `diff` package, O((n+m)·d) — fast for two versions of
 * one object whatever their size), and each run of removals next to a run of
 * additions shown as changed lines side by side.
 */
function align(a: string[], b: string[]): Array<[number | null, number | null]> {
  const pairs: Array<[number | null, number | null]> = [];
  let i = 0;
  let j = 0;
  const dels: number[] = [];
  const ins: number[] = [];
  const flush = () => {
    const k = Math.max(dels.length, ins.length);
    for (let x = 0; x < k; x++) pairs.push([dels[x] ?? null, ins[x] ?? null]);
    dels.length = 0;
    ins.length = 0;
  };
  for (const part of diffArrays(a, b)) {
    const n = part.count ?? part.value.length;
    if (part.removed) for (let x = 0; x < n; x++) dels.push(i++);
    else if (part.added) for (let x = 0; x < n; x++) ins.push(j++);
    else {
      flush();
      for (let x = 0; x < n; x++) pairs.push([i++, j++]);
    }
  }
  flush();
  return pairs;
}

/**
 * Rows for a side-by-side view. Text differences pair up as changed rows; a
 * row inside a field the engine reported gets that change's index (and is
 * highlighted even when both sides read "(hidden)").
 */
export function sideBySide(desired: YamlLine[] | null, live: YamlLine[] | null, changes: readonly ChangeDto[]): DiffRowDto[] {
  const left = desired ?? [];
  const right = live ?? [];
  return align(
    left.map((l) => l.text),
    right.map((l) => l.text),
  ).map(([li, ri]) => {
    const l = li === null ? undefined : left[li];
    const r = ri === null ? undefined : right[ri];
    // A change's list indices count in live, except for items only Git has
    // ("removed"): a Git-side path may only match those, or an item added
    // above an unchanged one would mark the unchanged one too.
    const change = r ? (changeFor(r.path, changes) ?? (l ? changeFor(l.path, changes, "removed") : null)) : l ? changeFor(l.path, changes) : null;
    let kind: DiffRowDto["kind"];
    if (l && r) kind = l.text === r.text && change === null ? "same" : "changed";
    else kind = l ? "removed" : "added";
    return { left: l && li !== null ? { line: li + 1, text: l.text } : null, right: r && ri !== null ? { line: ri + 1, text: r.text } : null, kind, change };
  });
}

/** The whole pipeline for one object: noise stripped, secrets masked, live normalised against Git. */
export function objectDiff(
  desiredBody: unknown,
  liveBody: unknown,
  changes: readonly ChangeDto[],
  rawDesired?: unknown,
): { desiredYaml: string | null; liveYaml: string | null; rows: DiffRowDto[] } {
  let desired = desiredBody === null || desiredBody === undefined ? null : stripNoise(desiredBody);
  const liveRaw = liveBody === null || liveBody === undefined ? null : stripNoise(liveBody);
  let live = liveRaw === null ? null : normaliseLive(liveRaw, desired, changes);
  if (desired !== null && rawDesired !== undefined && rawDesired !== null) ({ desired, live } = preferGitSpelling(rawDesired, desired, live));
  // Masking comes last, so nothing above can bring a Secret value (even hashed) back.
  if (desired !== null) desired = maskSecret(desired);
  if (live !== null) live = maskSecret(live);
  const dl = desired === null ? null : yamlLines(desired);
  const ll = live === null ? null : yamlLines(live);
  return {
    desiredYaml: dl ? dl.map((l) => l.text).join("\n") + "\n" : null,
    liveYaml: ll ? ll.map((l) => l.text).join("\n") + "\n" : null,
    rows: sideBySide(dl, ll, changes),
  };
}
