// The options every write carries, and small helpers the write modules share.
import type { GR } from "./errors";
import { isObj, type Obj } from "./json";
import type { ResourceType } from "./registry";

export type FieldValidation = "Strict" | "Warn" | "Ignore";

export interface WriteOptions {
  /** fieldManager query parameter, when given. */
  fieldManager?: string;
  /** Manager to record when no fieldManager was given (User-Agent prefix). */
  userAgentManager: string;
  dryRun: boolean;
  fieldValidation: FieldValidation;
  warnings: string[];
  force?: boolean;
}

export interface DeleteOptions {
  propagationPolicy?: string;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun: boolean;
  gracePeriodSeconds?: number;
}

export const PATCH_TYPES_BUILTIN = [
  "application/json-patch+json",
  "application/merge-patch+json",
  "application/strategic-merge-patch+json",
  "application/apply-patch+yaml",
];
export const PATCH_TYPES_CUSTOM = ["application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"];

export const CONFLICT_MSG = "the object has been modified; please apply your changes to the latest version and try again";

export function gr(rt: ResourceType): GR {
  return { group: rt.group, resource: rt.resource };
}

/** The store's key for a resource type: "group/resource". */
export function grKey(rt: ResourceType): string {
  return `${rt.group}/${rt.resource}`;
}

export function splitGR(g: string): [string, string] {
  const i = g.indexOf("/");
  return [g.slice(0, i), g.slice(i + 1)];
}

/** The object's metadata, created when absent. */
export function md(o: Obj): Obj {
  if (!isObj(o.metadata)) o.metadata = {};
  return o.metadata as Obj;
}
