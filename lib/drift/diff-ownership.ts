// Who wrote a live field, as the cluster recorded it: the managedFields entry
// that owns it (a person before a tool, then the newest) and whether the
// last-applied-configuration annotation holds it. Used by the differ
// (diff.ts) only for objects that differ, so both are read lazily.
import type { ManagerClassifier } from "./classify";
import { LAST_APPLIED_ANNOTATION } from "./metadata-noise";
import { OwnershipIndex, type OwnerEntry } from "./managed-fields";
import { fieldsV1Key, type Scalar, type Segment } from "./path";
import { isObj, sameKey } from "./diff-values";
import type { KubeObject, ManagerClass } from "./types";

/** The kinds of path frame the differ keeps, one per depth. */
export const FIELD = 0;
export const ITEM = 1;
export const VALUE = 2;

/** The differ's current path as parallel arrays (no allocation per node). */
export interface PathFrames {
  readonly fk: readonly number[];
  readonly fname: readonly string[];
  readonly findex: readonly number[];
  readonly fitem: readonly unknown[];
  readonly fkeys: readonly (readonly string[] | null)[];
  readonly fkdef: readonly (Readonly<Record<string, Scalar>> | undefined)[];
}

const CLASS_RANK: Record<ManagerClass, number> = { human: 0, unknown: 1, controller: 2, system: 3 };

export class LiveFieldOwnership {
  private ownershipIndex: OwnershipIndex | undefined;
  private lastApplied: unknown = undefined;
  private lastAppliedParsed = false;

  constructor(
    private readonly live: KubeObject,
    private readonly classifier: ManagerClassifier,
  ) {}

  /** The live object's managedFields, indexed on first use (only objects that differ need it). */
  index(): OwnershipIndex {
    if (this.ownershipIndex === undefined) this.ownershipIndex = OwnershipIndex.fromManagedFields(this.live.metadata.managedFields);
    return this.ownershipIndex;
  }

  /** Among co-owners: a person before a tool, then the most recent entry. */
  pick(owners: readonly number[]): OwnerEntry {
    const entries = this.index().entries;
    let best = entries[owners[0] as number] as OwnerEntry;
    let bestRank = CLASS_RANK[this.classifier.classify(best.manager)];
    for (let x = 1; x < owners.length; x++) {
      const e = entries[owners[x] as number] as OwnerEntry;
      const rank = CLASS_RANK[this.classifier.classify(e.manager)];
      if (rank < bestRank || (rank === bestRank && (e.time ?? "") > (best.time ?? ""))) {
        best = e;
        bestRank = rank;
      }
    }
    return best;
  }

  /** Whether the field at the path's first `depth` frames is in the last-applied-configuration annotation. */
  inLastApplied(path: PathFrames, depth: number): boolean {
    if (!this.lastAppliedParsed) {
      this.lastAppliedParsed = true;
      const raw = this.live.metadata.annotations?.[LAST_APPLIED_ANNOTATION];
      if (typeof raw === "string") {
        try {
          this.lastApplied = JSON.parse(raw) as unknown;
        } catch {
          this.lastApplied = undefined;
        }
      }
    }
    let cur = this.lastApplied;
    for (let d = 0; d < depth; d++) {
      if (cur === undefined || cur === null) return false;
      const k = path.fk[d];
      if (k === FIELD) {
        if (!isObj(cur)) return false;
        cur = cur[path.fname[d] as string];
      } else if (k === ITEM) {
        if (!Array.isArray(cur)) return false;
        const keys = path.fkeys[d];
        if (keys) {
          const want = path.fitem[d];
          const kdef = path.fkdef[d];
          cur = cur.find((x) => isObj(x) && sameKey(x, want, keys, kdef));
        } else cur = cur[path.findex[d] as number];
      } else {
        return Array.isArray(cur) && cur.includes(path.fitem[d]);
      }
    }
    return cur !== undefined && cur !== null;
  }

  /** The owner a change at this path is attributed to, if managedFields names any. */
  attribute(segs: readonly Segment[]): OwnerEntry | null {
    const own = this.index();
    const owners = own.ownersOf(segs.map(fieldsV1Key));
    return owners.length > 0 ? this.pick(owners) : null;
  }
}
