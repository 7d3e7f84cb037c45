// The field-level differ: one walk over Git (desired) and live together,
// guided by the kind's schema, that normalises as it goes (nothing is copied)
// and only touches managedFields and last-applied for objects that differ.
//
// Hot-path rules: the path is kept in parallel arrays (no allocation per
// node); segments, display strings and FieldsV1 keys are built only when a
// difference is found.
//
// The walk stays one class (about 400 lines) on purpose: every method reads
// and writes the same path frames, and splitting it would pass them around on
// the hot path. Value tests live in diff-values.ts, ownership in diff-ownership.ts.

import type { CompareContext } from "./context";
import { FIELD, ITEM, LiveFieldOwnership, VALUE, type PathFrames } from "./diff-ownership";
import { absent, allKeyed, isObj, isScalarValue, isUsed, keyValue, sameKey, scalarListsEqual, zeroOnly, type Obj } from "./diff-values";
import { matchIgnoreRule, type CompiledIgnoreRule } from "./ignore";
import { GENERIC, childSchema, isDefaultTree, kindSchema, type SchemaNode } from "./kube-schema";
import type { OwnerEntry } from "./managed-fields";
import { fieldsV1Key, plainPath, renderPath, type Scalar, type Segment } from "./path";
import { quantityEquals } from "./quantity";
import { isSecret, secretTokens, secretTokensEqual } from "./secrets";
import { groupOf, type Attribution, type Change, type ChangeKind, type IgnoredCounts, type KubeObject } from "./types";

const NAME_KEY: readonly string[] = ["name"];

const MASK = { changed: "(changed)", added: "(added)", removed: "(removed)" } as const;

export interface DiffResult {
  changes: Change[];
  ignored: IgnoredCounts;
}

export class ObjectDiffer implements PathFrames {
  private readonly changes: Change[] = [];
  private readonly ignored: IgnoredCounts = {};
  private readonly owners: LiveFieldOwnership;
  private masking = false;

  // The current path, one slot per depth (read by LiveFieldOwnership.inLastApplied).
  readonly fk: number[] = [];
  readonly fname: string[] = [];
  readonly findex: number[] = [];
  readonly fitem: unknown[] = [];
  readonly fkeys: (readonly string[] | null)[] = [];
  readonly fkdef: (Readonly<Record<string, Scalar>> | undefined)[] = [];

  constructor(
    private readonly ctx: CompareContext,
    private readonly desired: KubeObject,
    private readonly live: KubeObject,
    private readonly rules: readonly CompiledIgnoreRule[],
  ) {
    this.owners = new LiveFieldOwnership(live, ctx.classifier);
  }

  run(): DiffResult {
    const schema = kindSchema(groupOf(this.live.apiVersion), this.live.kind);
    this.cmpMap(this.desired, this.live, schema, 0);
    if (isSecret(this.live) || isSecret(this.desired)) this.cmpSecretData();
    return { changes: this.changes, ignored: this.ignored };
  }

  // ---- frames ------------------------------------------------------------

  private field(depth: number, name: string): void {
    this.fk[depth] = FIELD;
    this.fname[depth] = name;
  }

  private item(depth: number, index: number, item: unknown, keys: readonly string[] | null, kdef: Readonly<Record<string, Scalar>> | undefined): void {
    this.fk[depth] = ITEM;
    this.findex[depth] = index;
    this.fitem[depth] = item;
    this.fkeys[depth] = keys;
    this.fkdef[depth] = kdef;
  }

  private value(depth: number, v: unknown): void {
    this.fk[depth] = VALUE;
    this.fitem[depth] = v;
  }

  private segs(depth: number): Segment[] {
    const out: Segment[] = new Array(depth);
    for (let d = 0; d < depth; d++) {
      const k = this.fk[d];
      if (k === FIELD) out[d] = { t: "field", name: this.fname[d] as string };
      else if (k === ITEM) {
        const item = this.fitem[d];
        const keys = this.fkeys[d];
        const kdef = this.fkdef[d];
        out[d] = {
          t: "item",
          index: this.findex[d] as number,
          keys: keys ? keys.map((key) => [key, keyValue(item, key, kdef) as Scalar] as const) : null,
          item,
        };
      } else out[d] = { t: "value", value: this.fitem[d] as Scalar };
    }
    return out;
  }

  // ---- walk --------------------------------------------------------------

  private cmp(d: unknown, l: unknown, node: SchemaNode, depth: number, lParent: Obj | null, parentFree: boolean): void {
    if (d === l) return;
    // Scalars on both sides are most of any object: decide them without the general path.
    if (typeof d !== "object" && d !== undefined && typeof l !== "object" && l !== undefined) {
      if (!(node.quantity && quantityEquals(d, l))) this.emit("changed", depth, d, l, null);
      return;
    }
    const dAbsent = absent(d);
    const lAbsent = absent(l);
    if (dAbsent) {
      if (!lAbsent) this.liveOnly(l, node, depth, lParent);
      return;
    }
    if (lAbsent) {
      if (node.free === true && isObj(d)) this.removedKeys(d, node, depth);
      else if (!zeroOnly(d, node, parentFree)) this.emit("removed", depth, d, undefined, null);
      return;
    }
    if (typeof d === "object" && typeof l === "object") {
      const dArr = Array.isArray(d);
      if (dArr === Array.isArray(l)) {
        if (dArr) this.cmpList(d as unknown[], l as unknown[], node, depth);
        else this.cmpMap(d as Obj, l as Obj, node, depth);
        return;
      }
    } else if (node.quantity && quantityEquals(d, l)) {
      return;
    }
    this.emit("changed", depth, d, l, null);
  }

  private cmpMap(d: Obj, l: Obj, node: SchemaNode, depth: number): void {
    const free = node.free === true;
    const skipKeys = node.skipKeys;
    for (const k in d) {
      if (skipKeys !== undefined && skipKeys.has(k)) continue;
      const c = childSchema(node, k);
      if (c.skip) continue;
      this.field(depth, k);
      this.cmp(d[k], l[k], c, depth + 1, l, free);
    }
    for (const k in l) {
      if (d[k] !== undefined) continue;
      const v = l[k];
      if (absent(v)) continue;
      if (skipKeys !== undefined && skipKeys.has(k)) continue;
      if (node.defaultKeys !== undefined && node.defaultKeys.has(k)) continue;
      if (node.injectable && this.isInjected(k)) continue;
      const c = childSchema(node, k);
      if (c.skip) continue;
      this.field(depth, k);
      this.liveOnly(v, c, depth + 1, l);
    }
  }

  /** Every key of a map whose keys are data is its own field to the API server: a lost map is reported key by key. */
  private removedKeys(d: Obj, node: SchemaNode, depth: number): void {
    const skipKeys = node.skipKeys;
    for (const k in d) {
      const v = d[k];
      if (v === undefined || v === null || (skipKeys !== undefined && skipKeys.has(k))) continue;
      this.field(depth, k);
      this.emit("removed", depth + 1, v, undefined, null);
    }
  }

  private isInjected(key: string): boolean {
    for (const p of this.ctx.injectedPrefixes) if (key.startsWith(p)) return true;
    return false;
  }

  private cmpList(d: unknown[], l: unknown[], node: SchemaNode, depth: number): void {
    const itemNode = node.items ?? GENERIC;
    if (node.set) {
      this.cmpSet(d, l, itemNode, depth);
      return;
    }
    const kdef = node.keyDefaults;
    const keys = node.mergeKeys ?? (node.atomic ? null : NAME_KEY);
    if (keys !== null && allKeyed(d, keys, kdef) && allKeyed(l, keys, kdef)) {
      this.cmpKeyed(d, l, keys, kdef, itemNode, depth);
      return;
    }
    let scalars = true;
    for (const v of d) if (!isScalarValue(v)) { scalars = false; break; }
    if (scalars) for (const v of l) if (!isScalarValue(v)) { scalars = false; break; }
    if (scalars) {
      // Lists of scalars are atomic to the API server (args, command): one change for the list.
      if (!scalarListsEqual(d, l, itemNode.quantity === true)) this.emit("changed", depth, d, l, null);
      return;
    }
    const n = d.length > l.length ? d.length : l.length;
    for (let i = 0; i < n; i++) {
      if (i >= d.length) {
        this.item(depth, i, l[i], null, undefined);
        if (!absent(l[i])) this.liveOnly(l[i], itemNode, depth + 1, null);
      } else if (i >= l.length) {
        this.item(depth, i, d[i], null, undefined);
        this.emit("removed", depth + 1, d[i], undefined, null);
      } else {
        this.item(depth, i, l[i], null, undefined);
        this.cmp(d[i], l[i], itemNode, depth + 1, null, false);
      }
    }
  }

  private cmpKeyed(
    d: unknown[],
    l: unknown[],
    keys: readonly string[],
    kdef: Readonly<Record<string, Scalar>> | undefined,
    itemNode: SchemaNode,
    depth: number,
  ): void {
    // Which live items found a partner: a bit mask for the usual short lists.
    const small = l.length <= 31;
    let mask = 0;
    const usedArr: boolean[] | null = small ? null : new Array<boolean>(l.length).fill(false);
    for (let i = 0; i < d.length; i++) {
      const di = d[i];
      let j = -1;
      // Same position first: lists usually keep their order.
      if (i < l.length && !isUsed(mask, usedArr, i) && sameKey(di, l[i], keys, kdef)) j = i;
      else for (let x = 0; x < l.length; x++) if (!isUsed(mask, usedArr, x) && sameKey(di, l[x], keys, kdef)) { j = x; break; }
      if (j >= 0) {
        if (small) mask |= 1 << j;
        else (usedArr as boolean[])[j] = true;
        this.item(depth, j, l[j], keys, kdef);
        this.cmp(di, l[j], itemNode, depth + 1, null, false);
      } else {
        this.item(depth, i, di, keys, kdef);
        this.emit("removed", depth + 1, di, undefined, null);
      }
    }
    for (let j = 0; j < l.length; j++) {
      if (isUsed(mask, usedArr, j)) continue;
      this.item(depth, j, l[j], keys, kdef);
      this.liveOnly(l[j], itemNode, depth + 1, null);
    }
  }

  private cmpSet(d: unknown[], l: unknown[], itemNode: SchemaNode, depth: number): void {
    for (const v of d) {
      if (l.includes(v)) continue;
      this.value(depth, v);
      this.emit("removed", depth + 1, v, undefined, null);
    }
    for (const v of l) {
      if (d.includes(v)) continue;
      this.value(depth, v);
      this.liveOnly(v, itemNode, depth + 1, null);
    }
  }

  // ---- fields only live --------------------------------------------------

  /**
   * A field only live is drift when a human-facing or unknown manager wrote
   * it (`added`), or when the last apply still owns it although Git dropped
   * it (`unpruned`). Server defaults, system and controller fields are not.
   */
  private liveOnly(l: unknown, node: SchemaNode, depth: number, parent: Obj | null): void {
    if (node.skip || isDefaultTree(node, l, parent)) return;
    const own = this.owners.index();
    const segs = this.segs(depth);
    const keys = segs.map(fieldsV1Key);
    // A map field is reported key by key (whoever created the map need not have written every key,
    // and a map whose keys are data — annotations, labels — loses them one by one, never as a whole);
    // a list item is reported whole (its owner created it).
    if (isObj(l) && this.fk[depth - 1] === FIELD && (node.free === true || own.hasDescendants(keys))) {
      this.liveOnlyChildren(l, node, depth);
      return;
    }
    let owners = own.ownersOf(keys);
    if (owners.length === 0 && this.masking) {
      // Applied stringData is recorded under stringData, served back under data.
      owners = own.ownersOf(["f:stringData", ...keys.slice(1)]);
    }
    if (owners.length > 0) {
      const best = this.owners.pick(owners);
      const cls = this.ctx.classifier.classify(best.manager);
      if (cls === "human" || cls === "unknown") {
        this.emitAt("added", segs, undefined, l, best);
        return;
      }
      for (const i of owners) {
        const e = own.entries[i] as OwnerEntry;
        if (e.operation === "Apply" && this.ctx.classifier.isEnvironmentController(e.manager)) {
          this.emitAt("unpruned", segs, undefined, l, e);
          return;
        }
      }
      if (this.owners.inLastApplied(this, depth)) {
        this.emitAt("unpruned", segs, undefined, l, best);
        return;
      }
      if (typeof l === "object" && l !== null && own.hasDescendants(keys)) this.liveOnlyChildren(l, node, depth);
      return;
    }
    if (typeof l === "object" && l !== null && own.hasDescendants(keys)) {
      this.liveOnlyChildren(l, node, depth);
      return;
    }
    // Unowned and not in the last apply: the server set it (defaulting, allocation, admission).
    if (this.owners.inLastApplied(this, depth)) this.emitAt("unpruned", segs, undefined, l, null);
  }

  private liveOnlyChildren(l: object, node: SchemaNode, depth: number): void {
    if (Array.isArray(l)) {
      const itemNode = node.items ?? GENERIC;
      if (node.set) {
        for (const v of l) {
          this.value(depth, v);
          this.liveOnly(v, itemNode, depth + 1, null);
        }
        return;
      }
      const kdef = node.keyDefaults;
      const keys = node.mergeKeys ?? (node.atomic ? null : NAME_KEY);
      const keyed = keys !== null && allKeyed(l, keys, kdef);
      for (let i = 0; i < l.length; i++) {
        this.item(depth, i, l[i], keyed ? keys : null, kdef);
        if (!absent(l[i])) this.liveOnly(l[i], itemNode, depth + 1, null);
      }
      return;
    }
    const obj = l as Obj;
    for (const k in obj) {
      const v = obj[k];
      if (absent(v)) continue;
      if (node.skipKeys?.has(k) || node.defaultKeys?.has(k)) continue;
      if (node.injectable && this.isInjected(k)) continue;
      const c = childSchema(node, k);
      if (c.skip) continue;
      this.field(depth, k);
      this.liveOnly(v, c, depth + 1, obj);
    }
  }

  // ---- Secret data -------------------------------------------------------

  private cmpSecretData(): void {
    const d = secretTokens(this.desired);
    const l = secretTokens(this.live);
    this.masking = true;
    try {
      this.field(0, "data");
      for (const [k, dt] of d) {
        this.field(1, k);
        const lt = l.get(k);
        if (lt === undefined) this.emit("removed", 2, MASK.removed, undefined, null);
        else if (!secretTokensEqual(dt, lt, this.ctx.secretKey)) this.emit("changed", 2, MASK.changed, MASK.changed, null);
      }
      for (const k of l.keys()) {
        if (d.has(k)) continue;
        this.field(1, k);
        this.liveOnly(MASK.added, GENERIC, 2, null);
      }
    } finally {
      this.masking = false;
    }
  }

  // ---- results -----------------------------------------------------------

  private emit(kind: ChangeKind, depth: number, desired: unknown, live: unknown, owner: OwnerEntry | null): void {
    const segs = this.segs(depth);
    this.emitAt(kind, segs, desired, live, owner ?? this.owners.attribute(segs));
  }

  private emitAt(kind: ChangeKind, segs: readonly Segment[], desired: unknown, live: unknown, owner: OwnerEntry | null): void {
    const attribution: Attribution = owner
      ? {
          manager: owner.manager,
          operation: owner.operation,
          subresource: owner.subresource,
          time: owner.time,
          class: this.ctx.classifier.classify(owner.manager),
        }
      : { manager: null, operation: null, subresource: null, time: null, class: "unknown" };
    const path = plainPath(segs);
    if (this.rules.length > 0) {
      const rule = matchIgnoreRule(this.rules, { segs, path, manager: attribution.manager });
      if (rule) {
        this.ignored[rule.name] = (this.ignored[rule.name] ?? 0) + 1;
        return;
      }
    }
    const change: Change = { path, display: renderPath(segs), kind, attribution };
    if (this.masking) {
      // Whatever reached here, a Secret value never leaves the engine.
      change.masked = true;
      if (kind === "changed") {
        change.desired = MASK.changed;
        change.live = MASK.changed;
      } else if (kind === "removed") change.desired = MASK.removed;
      else change.live = MASK.added;
    } else {
      if (desired !== undefined) change.desired = desired;
      if (live !== undefined) change.live = live;
    }
    this.changes.push(change);
  }
}

export function diffObjects(desired: KubeObject, live: KubeObject, ctx: CompareContext, rules: readonly CompiledIgnoreRule[]): DiffResult {
  return new ObjectDiffer(ctx, desired, live, rules).run();
}
