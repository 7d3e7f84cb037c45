// JSON patch (RFC 6902), JSON merge patch (RFC 7386) and strategic merge
// patch, with the semantics the API server applies to each content type.
import { badRequest, genericUnprocessable } from "./errors";
import { clone, deepEqual, isObj, type Obj } from "./json";
import { fieldSchema, inferOpen, type Schema } from "./schema";

// ---- RFC 6902 ----

class PatchFailure extends Error {}

function decodePointer(p: string): string[] {
  if (p === "") return [];
  if (!p.startsWith("/")) throw new PatchFailure(`invalid JSON pointer ${JSON.stringify(p)}`);
  return p
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function container(doc: unknown, parts: string[], op: string, path: string): { parent: unknown; key: string } {
  let cur = doc;
  for (let i = 0; i < parts.length - 1; i++) {
    const k = parts[i] as string;
    if (Array.isArray(cur)) cur = cur[Number(k)];
    else if (isObj(cur)) cur = cur[k];
    else cur = undefined;
    if (cur === undefined || cur === null || typeof cur !== "object") throw new PatchFailure(`${op} operation does not apply: doc is missing path: ${JSON.stringify(path)}: missing value`);
  }
  return { parent: cur, key: parts[parts.length - 1] as string };
}

function arrayIndex(key: string, len: number, allowEnd: boolean, op: string): number {
  if (key === "-" && allowEnd) return len;
  if (!/^(0|[1-9]\d*)$/.test(key)) throw new PatchFailure(`${op} operation does not apply: Unable to access invalid index: ${key}`);
  const i = Number(key);
  if (i > len || (!allowEnd && i >= len)) throw new PatchFailure(`${op} operation does not apply: Unable to access invalid index: ${i}`);
  return i;
}

function getAt(doc: unknown, path: string, op: string): unknown {
  const parts = decodePointer(path);
  if (parts.length === 0) return doc;
  const { parent, key } = container(doc, parts, op, path);
  const v = Array.isArray(parent) ? parent[arrayIndex(key, parent.length, false, op)] : isObj(parent) ? parent[key] : undefined;
  if (v === undefined) throw new PatchFailure(`${op} operation does not apply: doc is missing key: ${path}: missing value`);
  return v;
}

function addAt(doc: unknown, path: string, value: unknown, op: string): unknown {
  const parts = decodePointer(path);
  if (parts.length === 0) return value;
  const { parent, key } = container(doc, parts, op, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(key, parent.length, true, op), 0, value);
  else if (isObj(parent)) parent[key] = value;
  else throw new PatchFailure(`${op} operation does not apply: doc is missing path: ${JSON.stringify(path)}: missing value`);
  return doc;
}

function removeAt(doc: unknown, path: string, op: string): unknown {
  const parts = decodePointer(path);
  const { parent, key } = container(doc, parts, op, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(key, parent.length, false, op), 1);
  else if (isObj(parent)) {
    if (!(key in parent)) throw new PatchFailure(`${op} operation does not apply: doc is missing key: ${path}: missing value`);
    delete parent[key];
  }
  return doc;
}

export function applyJsonPatch(docIn: Obj, patchBytes: string): Obj {
  let ops: unknown;
  try {
    ops = JSON.parse(patchBytes);
  } catch (e) {
    throw badRequest(`error decoding patch: ${(e as Error).message}`);
  }
  if (!Array.isArray(ops)) throw badRequest("json: cannot unmarshal object into Go value of type jsonpatch.Patch");
  if (ops.length > 10000) throw new Error("too many operations");
  let doc: unknown = clone(docIn);
  try {
    for (const raw of ops) {
      if (!isObj(raw)) throw new PatchFailure("invalid operation");
      const op = typeof raw.op === "string" ? raw.op : "";
      const path = typeof raw.path === "string" ? raw.path : "";
      switch (op) {
        case "add":
          doc = addAt(doc, path, clone(raw.value), "add");
          break;
        case "remove":
          doc = removeAt(doc, path, "remove");
          break;
        case "replace":
          getAt(doc, path, "replace");
          doc = removeAt(doc, path, "replace");
          doc = addAt(doc, path, clone(raw.value), "replace");
          break;
        case "move": {
          const from = typeof raw.from === "string" ? raw.from : "";
          const v = getAt(doc, from, "move");
          doc = removeAt(doc, from, "move");
          doc = addAt(doc, path, v, "move");
          break;
        }
        case "copy": {
          const from = typeof raw.from === "string" ? raw.from : "";
          doc = addAt(doc, path, clone(getAt(doc, from, "copy")), "copy");
          break;
        }
        case "test": {
          let cur: unknown;
          try {
            cur = getAt(doc, path, "test");
          } catch {
            cur = undefined;
          }
          if (!deepEqual(cur, raw.value)) throw new PatchFailure(`testing value ${path} failed: test failed`);
          break;
        }
        default:
          throw new PatchFailure(`Unexpected kind: ${op}`);
      }
    }
  } catch (e) {
    if (e instanceof PatchFailure) throw genericUnprocessable(e.message);
    throw e;
  }
  if (!isObj(doc)) throw genericUnprocessable("patched document is not an object");
  return doc;
}

// ---- RFC 7386 ----

function mergePatchValue(target: unknown, patch: unknown): unknown {
  if (!isObj(patch)) return clone(patch);
  const out: Obj = isObj(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatchValue(out[k], v);
  }
  return out;
}

export function applyMergePatch(doc: Obj, patchBytes: string): Obj {
  let patch: unknown;
  try {
    patch = JSON.parse(patchBytes);
  } catch {
    throw badRequest("Invalid JSON Patch");
  }
  const out = mergePatchValue(doc, patch);
  if (!isObj(out)) throw badRequest(`couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(out) ? "array" : typeof out} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  return out;
}

// ---- strategic merge patch ----

const DIRECTIVE = "$patch";
const RETAIN_KEYS = "$retainKeys";
const SET_ORDER = "$setElementOrder/";
const DELETE_PRIMITIVE = "$deleteFromPrimitiveList/";

export function applyStrategicMergePatch(doc: Obj, patchBytes: string, schema: Schema): Obj {
  let patch: unknown;
  try {
    patch = JSON.parse(patchBytes);
  } catch (e) {
    throw badRequest(`error decoding patch: ${(e as Error).message}`);
  }
  if (!isObj(patch)) throw badRequest("json: cannot unmarshal array into Go value of type map[string]interface {}");
  const out = smpMap(clone(doc), patch, schema);
  return isObj(out) ? out : {};
}

function smpMap(original: Obj | undefined, patch: Obj, schema: Schema): Obj | undefined {
  const directive = patch[DIRECTIVE];
  if (directive === "delete") return undefined;
  if (directive === "replace") {
    const out: Obj = {};
    for (const [k, v] of Object.entries(patch)) if (k !== DIRECTIVE && v !== null) out[k] = stripDirectives(v);
    return out;
  }
  const out: Obj = original ? { ...original } : {};
  const retain = Array.isArray(patch[RETAIN_KEYS]) ? (patch[RETAIN_KEYS] as unknown[]).filter((x): x is string => typeof x === "string") : undefined;
  const orders = new Map<string, unknown[]>();
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith(SET_ORDER) && Array.isArray(v)) orders.set(k.slice(SET_ORDER.length), v);
  }
  for (const [k, v] of Object.entries(patch)) {
    if (k === DIRECTIVE || k === RETAIN_KEYS || k.startsWith(SET_ORDER)) continue;
    if (k.startsWith(DELETE_PRIMITIVE)) {
      const field = k.slice(DELETE_PRIMITIVE.length);
      const cur = out[field];
      if (Array.isArray(cur) && Array.isArray(v)) {
        const next = cur.filter((x) => !v.some((d) => deepEqual(d, x)));
        if (next.length > 0) out[field] = next;
        else delete out[field];
      }
      continue;
    }
    if (v === null) {
      delete out[k];
      continue;
    }
    const fs = fieldSchema(schema, k, v);
    const cur = out[k];
    if (isObj(v)) {
      const merged = smpMap(isObj(cur) ? cur : undefined, v, fs);
      if (merged === undefined) delete out[k];
      else out[k] = merged;
    } else if (Array.isArray(v)) {
      out[k] = smpList(Array.isArray(cur) ? cur : [], v, fs, orders.get(k));
    } else {
      out[k] = v;
    }
  }
  for (const [field, order] of orders) {
    if (field in patch) continue;
    const cur = out[field];
    if (Array.isArray(cur)) out[field] = applyElementOrder(cur, order, cur, listMergeKey(fieldSchema(schema, field, cur)));
  }
  if (retain) {
    for (const k of Object.keys(out)) if (!retain.includes(k)) delete out[k];
  }
  return out;
}

function listMergeKey(s: Schema): string | undefined {
  return s.k === "list" && s.smp === "merge" ? s.smpKey : undefined;
}

function stripDirectives(v: unknown): unknown {
  if (Array.isArray(v)) return v.filter((x) => !(isObj(x) && x[DIRECTIVE] !== undefined && Object.keys(x).length === 1)).map(stripDirectives);
  if (isObj(v)) {
    const out: Obj = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === DIRECTIVE || k === RETAIN_KEYS || k.startsWith(SET_ORDER) || k.startsWith(DELETE_PRIMITIVE)) continue;
      out[k] = stripDirectives(x);
    }
    return out;
  }
  return v;
}

function smpList(original: unknown[], patch: unknown[], schema: Schema, order: unknown[] | undefined): unknown[] {
  const merged = smpListMerge(original, patch, schema);
  if (!order) return merged;
  // mergePatchIntoOriginal: $setElementOrder outranks the patch's own order, which outranks the server's.
  return applyElementOrder(merged, order, original, listMergeKey(schema));
}

function applyElementOrder(merged: unknown[], order: unknown[], original: unknown[], key: string | undefined): unknown[] {
  const inOrder = merged.filter((x) => indexIn(order, x, key) >= 0);
  const rest = merged.filter((x) => indexIn(order, x, key) < 0);
  return normalizeOrder(inOrder, rest, order, original, key);
}

function smpListMerge(original: unknown[], patch: unknown[], schema: Schema): unknown[] {
  const s = schema.k === "list" ? schema : undefined;
  if (patch.some((x) => isObj(x) && x[DIRECTIVE] === "replace" && Object.keys(x).length === 1)) {
    return patch.filter((x) => !(isObj(x) && x[DIRECTIVE] === "replace")).map(stripDirectives);
  }
  if (!s || s.smp !== "merge") return patch.map(stripDirectives);
  const key = s.smpKey;
  if (!key) {
    // Merge of primitives (e.g. finalizers): union, keeping the server's order for existing values.
    const merged = [...original];
    for (const p of patch) if (!merged.some((x) => deepEqual(x, p))) merged.push(p);
    const patchItems = merged.filter((x) => patch.some((p) => deepEqual(p, x)));
    const serverOnly = merged.filter((x) => !patch.some((p) => deepEqual(p, x)));
    return normalizeOrder(patchItems, serverOnly, patch, original, undefined);
  }
  let merged = original.map((x) => x);
  const itemSchema = s.items;
  const patchReal: unknown[] = [];
  for (const p of patch) {
    if (!isObj(p)) continue;
    const kv = p[key];
    const idx = merged.findIndex((x) => isObj(x) && deepEqual(x[key], kv));
    if (p[DIRECTIVE] === "delete") {
      if (idx >= 0) merged = merged.filter((_, i) => i !== idx);
      continue;
    }
    if (p[DIRECTIVE] === "replace") {
      const rep = stripDirectives(p);
      if (idx >= 0) merged[idx] = rep;
      else merged.push(rep);
      patchReal.push(p);
      continue;
    }
    patchReal.push(p);
    if (idx >= 0) {
      const cur = merged[idx];
      const m = smpMap(isObj(cur) ? cur : undefined, p, itemSchema.k === "struct" ? itemSchema : inferOpen(p));
      if (m === undefined) merged = merged.filter((_, i) => i !== idx);
      else merged[idx] = m;
    } else {
      const m = smpMap(undefined, p, itemSchema);
      if (m !== undefined) merged.push(m);
    }
  }
  const inPatch = (x: unknown) => isObj(x) && patchReal.some((p) => isObj(p) && deepEqual(p[key], x[key]));
  const patchItems = merged.filter(inPatch);
  const serverOnly = merged.filter((x) => !inPatch(x));
  return normalizeOrder(patchItems, serverOnly, patchReal, original, key);
}

function indexIn(list: unknown[], item: unknown, key: string | undefined): number {
  if (key === undefined) return list.findIndex((x) => deepEqual(x, item));
  if (!isObj(item)) return -1;
  return list.findIndex((x) => isObj(x) && deepEqual(x[key], item[key]));
}

function sortByOrder(items: unknown[], order: unknown[], key: string | undefined): unknown[] {
  return items
    .map((it, i) => ({ it, i, o: indexIn(order, it, key) }))
    .sort((a, b) => {
      const ao = a.o < 0 ? Number.MAX_SAFE_INTEGER : a.o;
      const bo = b.o < 0 ? Number.MAX_SAFE_INTEGER : b.o;
      return ao - bo || a.i - b.i;
    })
    .map((x) => x.it);
}

/** normalizeElementOrder: patch items in patch order, server-only items in server order, interleaved by server positions. */
function normalizeOrder(patchItems: unknown[], serverOnly: unknown[], patchOrder: unknown[], serverOrder: unknown[], key: string | undefined): unknown[] {
  const right = sortByOrder(patchItems, patchOrder, key);
  const left = sortByOrder(serverOnly, serverOrder, key);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexIn(serverOrder, left[i], key);
      const ri = indexIn(serverOrder, right[j], key);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}
