// Field sets as structured-merge-diff builds them, and their FieldsV1 encoding
// ("f:name", "k:{...}", "v:value", "i:index", "." for the node itself).
// The algorithms follow the documented semantics of sigs.k8s.io/structured-merge-diff
// so that managedFields read exactly like the real server's.
// One file on purpose: the set type, its FieldsV1 codec and the walk that
// builds a set from an object share the path-element grammar and change together.
import { deepEqual, isObj, type Obj } from "./json";
import { effective, fieldSchema, isNamedField, type Schema } from "./schema";

export type PathEl = string;
export type Path = PathEl[];

export class FieldSet {
  self = false;
  children = new Map<PathEl, FieldSet>();

  static fromFieldsV1(v: unknown): FieldSet {
    const s = new FieldSet();
    if (!isObj(v)) return s;
    for (const [k, c] of Object.entries(v)) {
      if (k === ".") {
        s.self = true;
        continue;
      }
      const n = FieldSet.fromFieldsV1(c);
      if (!isObj(c) || Object.keys(c).length === 0) n.self = true;
      s.children.set(k, n);
    }
    return s;
  }

  toFieldsV1(): Obj {
    const out: Obj = {};
    const keys = [...this.children.keys()].sort(compareEl);
    for (const k of keys) {
      const c = this.children.get(k);
      if (!c || c.isEmpty()) continue;
      out[k] = c.encodeNode();
    }
    return out;
  }

  private encodeNode(): Obj {
    const inner = this.toFieldsV1();
    if (Object.keys(inner).length === 0) return {};
    return this.self ? { ".": {}, ...inner } : inner;
  }

  insert(path: Path): void {
    if (path.length === 0) return;
    const [head, ...tail] = path as [PathEl, ...PathEl[]];
    let n = this.children.get(head);
    if (!n) {
      n = new FieldSet();
      this.children.set(head, n);
    }
    if (tail.length === 0) n.self = true;
    else n.insert(tail);
  }

  has(path: Path): boolean {
    if (path.length === 0) return false;
    const [head, ...tail] = path as [PathEl, ...PathEl[]];
    const n = this.children.get(head);
    if (!n) return false;
    return tail.length === 0 ? n.self : n.has(tail);
  }

  child(el: PathEl): FieldSet | undefined {
    return this.children.get(el);
  }

  isEmpty(): boolean {
    if (this.self) return false;
    for (const c of this.children.values()) if (!c.isEmpty()) return false;
    return true;
  }

  clone(): FieldSet {
    const s = new FieldSet();
    s.self = this.self;
    for (const [k, c] of this.children) s.children.set(k, c.clone());
    return s;
  }

  union(o: FieldSet): FieldSet {
    const s = new FieldSet();
    s.self = this.self || o.self;
    for (const [k, c] of this.children) {
      const oc = o.children.get(k);
      s.children.set(k, oc ? c.union(oc) : c.clone());
    }
    for (const [k, c] of o.children) if (!this.children.has(k)) s.children.set(k, c.clone());
    s.prune();
    return s;
  }

  difference(o: FieldSet): FieldSet {
    const s = new FieldSet();
    s.self = this.self && !o.self;
    for (const [k, c] of this.children) {
      const oc = o.children.get(k);
      s.children.set(k, oc ? c.difference(oc) : c.clone());
    }
    s.prune();
    return s;
  }

  intersection(o: FieldSet): FieldSet {
    const s = new FieldSet();
    s.self = this.self && o.self;
    for (const [k, c] of this.children) {
      const oc = o.children.get(k);
      if (oc) s.children.set(k, c.intersection(oc));
    }
    s.prune();
    return s;
  }

  private prune(): void {
    for (const [k, c] of this.children) if (c.isEmpty()) this.children.delete(k);
  }

  /** Member paths in structured-merge-diff's iteration order (members of a node before its children). */
  paths(prefix: Path = []): Path[] {
    const out: Path[] = [];
    const keys = [...this.children.keys()].sort(compareEl);
    for (const k of keys) if (this.children.get(k)?.self) out.push([...prefix, k]);
    for (const k of keys) {
      const c = this.children.get(k);
      if (c && c.children.size > 0) out.push(...c.paths([...prefix, k]));
    }
    return out;
  }
}

// ---- path elements ----

const parsedCache = new Map<string, unknown>();

function parsedPart(el: PathEl): unknown {
  let v = parsedCache.get(el);
  if (v === undefined) {
    try {
      v = JSON.parse(el.slice(2));
    } catch {
      v = el.slice(2);
    }
    if (parsedCache.size > 50_000) parsedCache.clear();
    parsedCache.set(el, v);
  }
  return v;
}

const EL_ORDER: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

function typeRank(v: unknown): number {
  if (typeof v === "number") return 0;
  if (typeof v === "string") return 1;
  if (typeof v === "boolean") return 2;
  if (Array.isArray(v)) return 3;
  if (isObj(v)) return 4;
  return 5;
}

function strCmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === "number" && typeof b === "number") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "string" && typeof b === "string") return strCmp(a, b);
  if (typeof a === "boolean" && typeof b === "boolean") return a === b ? 0 : a ? 1 : -1;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = compareValues(a[i], b[i]);
      if (c !== 0) return c;
    }
    return a.length - b.length;
  }
  if (isObj(a) && isObj(b)) return compareFieldLists(a, b);
  return 0;
}

function compareFieldLists(a: Obj, b: Obj): number {
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  for (let i = 0; ; i++) {
    if (i >= ka.length && i >= kb.length) return 0;
    if (i >= ka.length) return -1;
    if (i >= kb.length) return 1;
    const na = ka[i] as string;
    const nb = kb[i] as string;
    const c = strCmp(na, nb);
    if (c !== 0) return c;
    const cv = compareValues(a[na], b[nb]);
    if (cv !== 0) return cv;
  }
}

export function compareEl(a: PathEl, b: PathEl): number {
  const ta = EL_ORDER[a[0] ?? "f"] ?? 9;
  const tb = EL_ORDER[b[0] ?? "f"] ?? 9;
  if (ta !== tb) return ta - tb;
  if (ta === 0) return strCmp(a, b);
  if (ta === 3) return Number(a.slice(2)) - Number(b.slice(2));
  return compareValues(parsedPart(a), parsedPart(b));
}

function goToString(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "string") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(goToString).join(",")}]`;
  if (isObj(v)) return Object.entries(v).map(([k, x]) => `${k}=${goToString(x)}`).join("");
  return String(v);
}

/** Path as structured-merge-diff prints it in conflict messages: `.spec.containers[name="x"].image`. */
export function pathString(path: Path): string {
  return path
    .map((el) => {
      const t = el[0];
      if (t === "f") return `.${el.slice(2)}`;
      if (t === "i") return `[${el.slice(2)}]`;
      const v = parsedPart(el);
      if (t === "v") return `[=${goToString(v)}]`;
      if (isObj(v)) return `[${Object.entries(v).map(([k, x]) => `${k}=${goToString(x)}`).join(",")}]`;
      return `[${String(v)}]`;
    })
    .join("");
}

export function fieldEl(name: string): PathEl {
  return `f:${name}`;
}

/** Path element for a list item, or undefined when it cannot be keyed. */
export function listItemEl(list: Extract<Schema, { k: "list" }>, item: unknown, index: number): PathEl {
  if (list.type === "map" && list.keys && isObj(item)) {
    const key: Obj = {};
    for (const name of [...list.keys].sort()) {
      let v = item[name];
      if (v === undefined && list.keyDefaults) v = list.keyDefaults[name];
      if (v !== undefined) key[name] = v;
    }
    if (Object.keys(key).length > 0) return `k:${JSON.stringify(key)}`;
    return `i:${index}`;
  }
  if (list.type === "set") return `v:${JSON.stringify(item)}`;
  return `i:${index}`;
}

// ---- building field sets ----

/** The set of fields an object specifies (typed.ToFieldSet). */
export function toFieldSet(value: unknown, schema: Schema): FieldSet {
  const set = new FieldSet();
  walkToSet(value, schema, [], set);
  return set;
}

function walkToSet(value: unknown, schema: Schema, path: Path, set: FieldSet): void {
  const s = effective(schema, value);
  if (s.k === "scalar") {
    if (path.length > 0) set.insert(path);
    return;
  }
  if (s.k === "list") {
    if (s.type === "atomic") {
      if (path.length > 0) set.insert(path);
      return;
    }
    if (!Array.isArray(value)) return;
    value.forEach((item, i) => {
      const p = [...path, listItemEl(s, item, i)];
      walkToSet(item, s.items, p, set);
      set.insert(p);
    });
    return;
  }
  if (s.k === "struct") {
    if (s.atomic) {
      if (path.length > 0) set.insert(path);
      return;
    }
    if (!isObj(value)) return;
    for (const [key, v] of Object.entries(value)) {
      if (v === undefined) continue;
      const p = [...path, fieldEl(key)];
      walkToSet(v, fieldSchema(s, key, v), p, set);
      if (v === null || (isObj(v) && Object.keys(v).length === 0)) set.insert(p);
      else if (!isNamedField(s, key)) set.insert(p);
    }
  }
}

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/** typed.Compare: which fields were added, modified and removed going from lhs to rhs. */
export function compareObjects(lhs: unknown, rhs: unknown, schema: Schema): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  cmpNode(lhs, rhs, schema, [], c);
  return c;
}

function isEmptyish(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isObj(v)) return Object.keys(v).length === 0;
  return false;
}

function leafRule(lhs: unknown, rhs: unknown, path: Path, c: Comparison): void {
  if (path.length === 0) return;
  if (lhs === undefined) c.added.insert(path);
  else if (rhs === undefined) c.removed.insert(path);
  else if (!deepEqual(lhs, rhs)) c.modified.insert(path);
}

function kindOf(v: unknown): "list" | "map" | "scalar" | "none" {
  if (v === undefined) return "none";
  if (Array.isArray(v)) return "list";
  if (isObj(v)) return "map";
  return "scalar";
}

function cmpNode(lhs: unknown, rhs: unknown, schema: Schema, path: Path, c: Comparison): void {
  // Values whose shape changed (map → scalar, …) are compared once per side.
  const kl = kindOf(lhs);
  const kr = kindOf(rhs);
  let leaf: boolean;
  if (kl !== "none" && kr !== "none" && kl !== kr && schema.k === "deduced") {
    leaf = handleNode(lhs, undefined, schema, path, c, true) || handleNode(undefined, rhs, schema, path, c, true);
    leafRule(lhs, rhs, path, c);
  } else {
    leaf = handleNode(lhs, rhs, schema, path, c, false);
  }
  if (!leaf && path.length > 0) {
    if (lhs === undefined) c.added.insert(path);
    else if (rhs === undefined) c.removed.insert(path);
  }
}

/** Returns true when the node was treated as a leaf. */
function handleNode(lhs: unknown, rhs: unknown, schema: Schema, path: Path, c: Comparison, sideOnly: boolean): boolean {
  const probe = rhs !== undefined ? rhs : lhs;
  const s = effective(schema, probe);
  if (s.k === "scalar" || s.k === "deduced") {
    if (!sideOnly) leafRule(lhs, rhs, path, c);
    return true;
  }
  if (s.k === "list") {
    const l = Array.isArray(lhs) ? lhs : null;
    const r = Array.isArray(rhs) ? rhs : null;
    if (s.type === "atomic" || ((l === null || l.length === 0) && (r === null || r.length === 0))) {
      if (!sideOnly) leafRule(lhs, rhs, path, c);
      return true;
    }
    cmpList(l ?? [], r ?? [], s, path, c);
    return false;
  }
  const l = isObj(lhs) ? lhs : null;
  const r = isObj(rhs) ? rhs : null;
  if (s.atomic || (isEmptyish(l) && isEmptyish(r))) {
    if (!sideOnly) leafRule(lhs, rhs, path, c);
    return true;
  }
  const keys = new Set<string>([...Object.keys(l ?? {}), ...Object.keys(r ?? {})]);
  for (const key of keys) {
    const lv = l?.[key];
    const rv = r?.[key];
    if (lv === undefined && rv === undefined) continue;
    cmpNode(lv, rv, fieldSchema(s, key, rv !== undefined ? rv : lv), [...path, fieldEl(key)], c);
  }
  return false;
}

function cmpList(l: unknown[], r: unknown[], s: Extract<Schema, { k: "list" }>, path: Path, c: Comparison): void {
  const lv = new Map<PathEl, unknown[]>();
  const order: PathEl[] = [];
  l.forEach((item, i) => {
    const pe = listItemEl(s, item, i);
    const cur = lv.get(pe);
    if (cur) cur.push(item);
    else {
      lv.set(pe, [item]);
      order.push(pe);
    }
  });
  const rv = new Map<PathEl, unknown[]>();
  r.forEach((item, i) => {
    const pe = listItemEl(s, item, i);
    const cur = rv.get(pe);
    if (cur) cur.push(item);
    else {
      rv.set(pe, [item]);
      if (!lv.has(pe)) order.push(pe);
    }
  });
  for (const pe of order) {
    const ll = lv.get(pe) ?? [];
    const rl = rv.get(pe) ?? [];
    const p = [...path, pe];
    if (ll.length <= 1 && rl.length <= 1) cmpNode(ll[0], rl[0], s.items, p, c);
    else if (ll.length >= 2 && rl.length >= 2) {
      if (!deepEqual(ll, rl)) c.modified.insert(p);
    } else if (ll.length >= 2) {
      if (rl.length > 0) cmpNode(undefined, rl[0], s.items, p, c);
      c.removed.insert(p);
    } else {
      if (ll.length > 0) cmpNode(ll[0], undefined, s.items, p, c);
      c.added.insert(p);
    }
  }
}

// ---- set helpers that need the schema ----

/** Set.EnsureNamedFieldsAreMembers: struct fields that have owned children become members themselves. */
export function ensureNamedFieldsAreMembers(set: FieldSet, schema: Schema, value: unknown): FieldSet {
  const out = new FieldSet();
  out.self = set.self;
  const s = effective(schema, value);
  for (const [el, c] of set.children) {
    let childSchema: Schema = { k: "deduced" };
    let childValue: unknown;
    if (el.startsWith("f:")) {
      const name = el.slice(2);
      childValue = isObj(value) ? value[name] : undefined;
      childSchema = fieldSchema(s, name, childValue);
    } else if (s.k === "list") {
      childSchema = s.items;
      childValue = Array.isArray(value) ? findListItem(s, value, el) : undefined;
    }
    const n = ensureNamedFieldsAreMembers(c, childSchema, childValue);
    if (el.startsWith("f:") && isNamedField(s, el.slice(2)) && c.children.size > 0) n.self = true;
    out.children.set(el, n);
  }
  return out;
}

function findListItem(s: Extract<Schema, { k: "list" }>, list: unknown[], el: PathEl): unknown {
  for (let i = 0; i < list.length; i++) if (listItemEl(s, list[i], i) === el) return list[i];
  return undefined;
}

/** TypedValue.RemoveItems: drops every map field / list item whose path is a member of `set`. */
export function removeItems(value: unknown, set: FieldSet, schema: Schema): unknown {
  const s = effective(schema, value);
  if (s.k === "list") {
    if (!Array.isArray(value) || s.type === "atomic" || value.length === 0) return value;
    const out: unknown[] = [];
    value.forEach((item, i) => {
      const pe = listItemEl(s, item, i);
      const c = set.child(pe);
      if (c?.self) return;
      out.push(c && c.children.size > 0 ? removeItems(item, c, s.items) : item);
    });
    return out.length > 0 ? out : null;
  }
  if (s.k === "struct") {
    if (!isObj(value) || s.atomic || Object.keys(value).length === 0) return value;
    const out: Obj = {};
    for (const [k, v] of Object.entries(value)) {
      const c = set.child(fieldEl(k));
      if (c?.self) continue;
      out[k] = c && c.children.size > 0 ? removeItems(v, c, fieldSchema(s, k, v)) : v;
    }
    return Object.keys(out).length > 0 ? out : null;
  }
  return value;
}

/** Drops keys whose value became null through item removal (typed objects never keep them). */
export function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (isObj(v)) {
    const out: Obj = {};
    for (const [k, x] of Object.entries(v)) if (x !== null && x !== undefined) out[k] = dropNulls(x);
    return out;
  }
  return v;
}

// ---- merge (server-side apply) ----

/** TypedValue.Merge: the applied configuration `rhs` merged onto the live object `lhs`. */
export function mergeApply(lhs: unknown, rhs: unknown, schema: Schema): unknown {
  if (rhs === undefined) return lhs;
  if (lhs === undefined) return rhs;
  const s = effective(schema, rhs);
  if (s.k === "scalar" || s.k === "deduced") return rhs;
  if (s.k === "list") {
    if (s.type === "atomic" || !Array.isArray(lhs) || !Array.isArray(rhs)) return rhs;
    if (lhs.length === 0 && rhs.length === 0) return rhs;
    return mergeLists(lhs, rhs, s);
  }
  if (s.atomic || !isObj(lhs) || !isObj(rhs)) return rhs;
  if (Object.keys(lhs).length === 0 && Object.keys(rhs).length === 0) return rhs;
  const out: Obj = {};
  for (const [k, v] of Object.entries(lhs)) out[k] = v;
  for (const [k, v] of Object.entries(rhs)) {
    if (v === undefined) continue;
    out[k] = k in lhs ? mergeApply(lhs[k], v, fieldSchema(s, k, v)) : v;
  }
  return out;
}

function mergeLists(lhs: unknown[], rhs: unknown[], s: Extract<Schema, { k: "list" }>): unknown[] {
  const index = (list: unknown[]) => {
    const pes: PathEl[] = [];
    const seen = new Map<PathEl, unknown>();
    list.forEach((item, i) => {
      const pe = listItemEl(s, item, i);
      if (seen.has(pe)) return;
      seen.set(pe, item);
      pes.push(pe);
    });
    return { pes, seen };
  };
  const R = index(rhs);
  const L = index(lhs);
  const shared = R.pes.filter((pe) => L.seen.has(pe));
  let nextShared = shared.shift();
  const merged = new Set<PathEl>();
  const out: unknown[] = [];
  let li = 0;
  let ri = 0;
  const takeMerged = (pe: PathEl) => {
    const l = L.seen.get(pe);
    const r = R.seen.get(pe);
    out.push(l === undefined ? r : mergeApply(l, r, s.items));
  };
  while (li < L.pes.length || ri < R.pes.length) {
    if (li < L.pes.length && ri < R.pes.length) {
      const pe = L.pes[li] as PathEl;
      if (pe === R.pes[ri]) {
        merged.add(pe);
        takeMerged(pe);
        li++;
        ri++;
        nextShared = shared.shift();
        continue;
      }
      if (R.seen.has(pe) && nextShared !== undefined && nextShared !== pe) {
        li++;
        continue;
      }
    }
    if (li < L.pes.length) {
      const pe = L.pes[li] as PathEl;
      if (!R.seen.has(pe)) {
        out.push(L.seen.get(pe));
        li++;
        continue;
      } else if (merged.has(pe)) {
        li++;
      }
    }
    if (ri < R.pes.length) {
      const pe = R.pes[ri] as PathEl;
      merged.add(pe);
      takeMerged(pe);
      ri++;
      if (nextShared !== undefined && nextShared === pe) nextShared = shared.shift();
    }
  }
  return out;
}
