// managedFields (FieldsV1) decoding: which manager owns which path.
//
// FieldsV1 is a trie: `f:<field>`, `k:<merge-key JSON>`, `v:<value JSON>`,
// `i:<index>`, and `.` meaning "this manager owns the node itself" (a list
// item's existence). A node spelled `{}` is owned whole: for a map or list
// value that means atomic ownership of everything beneath it.

import { canonicalFieldsV1Key, segmentFromFieldsV1Key, renderPath, type Segment } from "./path";
import type { ManagedFieldsEntry } from "./types";

export interface OwnerEntry {
  /** null for `ancient-changes` and entries without a manager: nobody the cluster can name. */
  manager: string | null;
  operation: "Apply" | "Update" | null;
  subresource: string | null;
  time: string | null;
  /** Position in metadata.managedFields. */
  index: number;
}

interface TrieNode {
  children: Map<string, TrieNode> | null;
  /** Entries that own this exact node (leaf or `.`). */
  owners: number[] | null;
  /** Entries that own this node whole (spelled `{}`), hence everything beneath it. */
  whole: number[] | null;
}

function newNode(): TrieNode {
  return { children: null, owners: null, whole: null };
}

const NO_OWNERS: readonly number[] = Object.freeze([]);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function normaliseEntry(raw: unknown, index: number): OwnerEntry {
  const e = isRecord(raw) ? (raw as ManagedFieldsEntry) : {};
  const manager = typeof e.manager === "string" && e.manager !== "" && e.manager !== "ancient-changes" ? e.manager : null;
  const operation = e.operation === "Apply" || e.operation === "Update" ? e.operation : null;
  const time = typeof e.time === "string" && e.time !== "" && !Number.isNaN(Date.parse(e.time)) ? e.time : null;
  const subresource = typeof e.subresource === "string" && e.subresource !== "" ? e.subresource : null;
  return manager === null
    ? { manager: null, operation: null, subresource: null, time: null, index }
    : { manager, operation, subresource, time, index };
}

type Fields = Record<string, unknown>;

function hasAnyKey(v: Fields): boolean {
  for (const _ in v) return true;
  return false;
}

// Canonical spelling → raw key, per FieldsV1 node, built only when a direct lookup misses.
const canonicalKeys = new WeakMap<Fields, Map<string, string>>();

/** The FieldsV1 child for a canonical key: the API server writes canonical keys, so a direct hit is the rule. */
function childOf(node: Fields, key: string): Fields | undefined {
  const direct = node[key];
  if (direct !== undefined) return isRecord(direct) ? direct : undefined;
  if (key.charCodeAt(0) === 102 /* f */) return undefined;
  let map = canonicalKeys.get(node);
  if (!map) {
    map = new Map();
    for (const raw in node) {
      if (raw === "." || raw.startsWith("f:")) continue;
      const c = canonicalFieldsV1Key(raw);
      if (c !== null && c !== raw) map.set(c, raw);
    }
    canonicalKeys.set(node, map);
  }
  const raw = map.get(key);
  const v = raw === undefined ? undefined : node[raw];
  return isRecord(v) ? v : undefined;
}

/**
 * Ownership lookups straight over the raw FieldsV1 of each entry: nothing is
 * decoded until a path is asked for, and only along that path.
 */
export class OwnershipIndex {
  readonly entries: readonly OwnerEntry[];
  private readonly fields: readonly (Fields | null)[];
  private trieRoot: TrieNode | null = null;

  private constructor(entries: OwnerEntry[], fields: (Fields | null)[]) {
    this.entries = entries;
    this.fields = fields;
  }

  /** Tolerates anything: malformed entries own nothing, unknown keys are skipped. */
  static fromManagedFields(managedFields: unknown): OwnershipIndex {
    const list = Array.isArray(managedFields) ? managedFields : [];
    return new OwnershipIndex(
      list.map(normaliseEntry),
      list.map((raw) => (isRecord(raw) && (raw.fieldsType === undefined || raw.fieldsType === "FieldsV1") && isRecord(raw.fieldsV1) ? raw.fieldsV1 : null)),
    );
  }

  private nodeAt(entry: number, keys: readonly string[]): Fields | undefined {
    let node: Fields | undefined = this.fields[entry] ?? undefined;
    for (let i = 0; i < keys.length && node !== undefined; i++) node = childOf(node, keys[i] as string);
    return node;
  }

  /** Entries owning exactly this path (a leaf `{}` or a `.` node). */
  exact(keys: readonly string[]): readonly number[] {
    let out: number[] | null = null;
    for (let e = 0; e < this.fields.length; e++) {
      const node = this.nodeAt(e, keys);
      if (node !== undefined && (node["."] !== undefined || !hasAnyKey(node))) (out ??= []).push(e);
    }
    return out ?? NO_OWNERS;
  }

  /**
   * Entries owning the nearest ancestor whole. Owning a list item's existence
   * (`.`) is not owning every field in it, so such parents do not count.
   */
  wholeAncestor(keys: readonly string[]): readonly number[] {
    let best = -1;
    let out: number[] | null = null;
    for (let e = 0; e < this.fields.length; e++) {
      let node: Fields | undefined = this.fields[e] ?? undefined;
      for (let i = 0; i < keys.length - 1 && node !== undefined; i++) {
        node = childOf(node, keys[i] as string);
        if (node !== undefined && !hasAnyKey(node)) {
          if (i > best) {
            best = i;
            out = [e];
          } else if (i === best) out?.push(e);
          break;
        }
      }
    }
    return out ?? NO_OWNERS;
  }

  /** The most specific owners of a path: exact, else an ancestor owned whole. */
  ownersOf(keys: readonly string[]): readonly number[] {
    const exact = this.exact(keys);
    return exact.length > 0 ? exact : this.wholeAncestor(keys);
  }

  hasDescendants(keys: readonly string[]): boolean {
    for (let e = 0; e < this.fields.length; e++) {
      const node = this.nodeAt(e, keys);
      if (node === undefined) continue;
      for (const k in node) if (k !== ".") return true;
    }
    return false;
  }

  private trie(): TrieNode {
    if (this.trieRoot) return this.trieRoot;
    const root = newNode();
    const add = (node: TrieNode, fields: Fields, entry: number): void => {
      for (const rawKey in fields) {
        if (rawKey === ".") {
          (node.owners ??= []).push(entry);
          continue;
        }
        const key = canonicalFieldsV1Key(rawKey);
        if (key === null) continue;
        const children = (node.children ??= new Map());
        let child = children.get(key);
        if (!child) children.set(key, (child = newNode()));
        const sub = fields[rawKey];
        if (isRecord(sub) && hasAnyKey(sub)) add(child, sub, entry);
        else {
          (child.owners ??= []).push(entry);
          (child.whole ??= []).push(entry);
        }
      }
    };
    this.fields.forEach((f, i) => {
      if (f) add(root, f, i);
    });
    return (this.trieRoot = root);
  }

  /** Every path an entry owns (leaves and `.` nodes), as FieldsV1 keys. */
  ownedPaths(entry: number): string[][] {
    return this.allOwned()
      .filter((o) => o.owners.includes(entry))
      .map((o) => o.keys);
  }

  /** Every owned path with its owners. */
  allOwned(): { keys: string[]; owners: readonly number[] }[] {
    const out: { keys: string[]; owners: readonly number[] }[] = [];
    const walk = (node: TrieNode, prefix: string[]) => {
      if (node.owners && prefix.length > 0) out.push({ keys: prefix, owners: node.owners });
      if (node.children) for (const [k, child] of node.children) walk(child, [...prefix, k]);
    };
    walk(this.trie(), []);
    return out;
  }
}

/** Display string (`spec.template.spec.containers[name=api].image`) of a FieldsV1 key path. */
export function displayFieldsV1Path(keys: readonly string[]): string {
  const segs: Segment[] = [];
  for (const k of keys) {
    const seg = segmentFromFieldsV1Key(k);
    if (seg) segs.push(seg);
  }
  return renderPath(segs);
}

/** Decodes one entry's FieldsV1 into owned paths (display strings). */
export function decodeFieldsV1(fieldsV1: unknown): string[] {
  const index = OwnershipIndex.fromManagedFields([{ manager: "x", fieldsType: "FieldsV1", fieldsV1 }]);
  return index.ownedPaths(0).map(displayFieldsV1Path);
}
