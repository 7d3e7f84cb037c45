// Built-in kinds served beyond the original core set (workloads, RBAC,
// storage and policy objects, Events). Each kind brings what the shared
// machinery asks of it: registry parameters, the SetDefaults_* defaulter, the
// strategy's create/update preparation and validation, and its Table columns.
import type { FieldError } from "../errors";
import type { Obj } from "../json";
import type { Column } from "../table-columns";
import { BATCH_KINDS } from "./batch";
import { POLICY_KINDS } from "./policy";
import { RBAC_KINDS } from "./rbac";
import { WORKLOAD_KINDS } from "./workloads";

/** The parameters registry.ts turns into a ResourceType. */
export interface BuiltinTypeParams {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  schema: import("../schema").Schema;
  shortNames?: string[];
  categories?: string[];
  status?: boolean;
  scale?: boolean;
  generation?: "none" | "spec" | "specAnnotations" | "nonMeta";
  extraFieldSelectors?: string[];
}

export interface KindSupport {
  type: BuiltinTypeParams;
  /** SetDefaults_<Kind>, after metadata normalisation. */
  defaults?(obj: Obj): void;
  /**
   * What the real server sets on a new object early enough that the creator's managedFields
   * entry owns it (the rest of the create strategy runs later: prepareForCreate).
   */
  decodeForCreate?(obj: Obj): void;
  /** The typed zero value, serialised (the Update baseline on create). */
  emptyShape?(): Obj;
  /** The strategy's PrepareForCreate beyond resetting status; uid is the one the object will get. */
  prepareForCreate?(obj: Obj, uid: string): void;
  /** The status a created object starts with. */
  statusOnCreate?(obj: Obj): unknown;
  /** The strategy's PrepareForUpdate of the main resource, after the generation rule ran. */
  prepareForUpdate?(next: Obj, old: Obj): void;
  validate?(obj: Obj, old: Obj | undefined, errs: FieldError[]): void;
  columns?(): Column[];
}

const KINDS = new Map<string, KindSupport>([...WORKLOAD_KINDS, ...BATCH_KINDS, ...POLICY_KINDS, ...RBAC_KINDS].map((k) => [k.type.kind, k]));

export function builtinKindSupport(kind: string): KindSupport | undefined {
  return KINDS.get(kind);
}

export function extraBuiltinTypes(): BuiltinTypeParams[] {
  return [...KINDS.values()].map((k) => k.type);
}
