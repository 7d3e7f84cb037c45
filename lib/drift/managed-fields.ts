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

export class OwnershipIndex {
  readonly entries: readonly OwnerEntry[];
  private readonly root: TrieNode = newNode();

  private constructor(entries: OwnerEntry[]) {
    this.entries = entries;
  }

  /** Tolerates anything: malformed entries own nothing, unknown keys are skipped. */
  static fromManagedFields(managedFields: unknown): OwnershipIndex {
    const list = Array.isArray(managedFields) ? managedFields : [];
    const index = new OwnershipIndex(list.map(normaliseEntry));
    list.forEach((raw, i) => {
      if (!isRecord(raw)) return;
      if (raw.fieldsType !== undefined && raw.fieldsType !== "FieldsV1") return;
      if (isRecord(raw.fieldsV1)) index.add(index.root, raw.fieldsV1, i);
    });
    return index;
  }

  private add(node: TrieNode, fields: Record<string, unknown>, entry: number): void {
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
      let hasKeys = false;
      if (isRecord(sub)) for (const _ in sub) { hasKeys = true; break; }
      if (!hasKeys) {
        (child.owners ??= []).push(entry);
        (child.whole ??= []).push(entry);
      } else {
        this.add(child, sub as Record<string, unknown>, entry);
      }
    }
  }

  private find(keys: readonly string[]): TrieNode | undefined {
    let node: TrieNode | undefined = this.root;
    for (const k of keys) {
      node = node.children?.get(k);
      if (!node) return undefined;
    }
    return node;
  }

  /** Entries owning exactly this path. */
  exact(keys: readonly string[]): readonly number[] {
    return this.find(keys)?.owners ?? NO_OWNERS;
  }

  /**
   * Entries owning the nearest ancestor whole. Owning a list item's existence
   * (`.`) is not owning every field in it, so such parents do not count.
   */
  wholeAncestor(keys: readonly string[]): readonly number[] {
    let node: TrieNode | undefined = this.root;
    let found: readonly number[] = NO_OWNERS;
    for (let i = 0; i < keys.length - 1; i++) {
      node = node.children?.get(keys[i] as string);
      if (!node) break;
      if (node.whole) found = node.whole;
    }
    return found;
  }

  /** The most specific owners of a path: exact, else an ancestor owned whole. */
  ownersOf(keys: readonly string[]): readonly number[] {
    const exact = this.exact(keys);
    return exact.length > 0 ? exact : this.wholeAncestor(keys);
  }

  hasDescendants(keys: readonly string[]): boolean {
    const node = this.find(keys);
    return node?.children !== null && node?.children !== undefined && node.children.size > 0;
  }

  /** Every path an entry owns (leaves and `.` nodes), as FieldsV1 keys. */
  ownedPaths(entry: number): string[][] {
    const out: string[][] = [];
    const walk = (node: TrieNode, prefix: string[]) => {
      if (node.owners?.includes(entry) && prefix.length > 0) out.push(prefix);
      if (node.children) for (const [k, child] of node.children) walk(child, [...prefix, k]);
    };
    walk(this.root, []);
    return out;
  }

  /** Every owned path with its owners. */
  allOwned(): { keys: string[]; owners: readonly number[] }[] {
    const out: { keys: string[]; owners: readonly number[] }[] = [];
    const walk = (node: TrieNode, prefix: string[]) => {
      if (node.owners && prefix.length > 0) out.push({ keys: prefix, owners: node.owners });
      if (node.children) for (const [k, child] of node.children) walk(child, [...prefix, k]);
    };
    walk(this.root, []);
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
