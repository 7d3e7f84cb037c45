// What may differ between two correct API servers is replaced by a
// placeholder before comparing: identities (uids, kept distinct by numbering
// them in the order they are first seen, so "the same uid twice" still
// compares), times, resourceVersions and continue tokens, allocated addresses
// and ports, generated name suffixes, certificates.
import { readOnlyUser } from "@/tools/realkube/cluster";

const TIME_KEYS = new Set(["creationTimestamp", "deletionTimestamp", "time", "lastTransitionTime", "lastUpdateTime", "lastScaleTime", "lastHeartbeatTime", "startTime", "completionTime"]);
const ISO_TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)/g;
const UID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;
/** The read-only users' names, which Forbidden messages quote. */
const READ_ONLY_USER = new RegExp(`User "(kubesim-readonly|${readOnlyUser})"`, "g");

function entryOrder(e: unknown): string {
  const m = e as { operation?: string; manager?: string; subresource?: string; apiVersion?: string };
  return [m.operation, m.manager, m.subresource ?? "", m.apiVersion].join("\u0000");
}

/**
 * The real server validates a custom resource's properties in Go map order, which varies from
 * run to run: the causes of an Invalid Status, and the bracketed list in its message, are
 * compared as sets (sorted).
 */
function unorderCauses(status: Record<string, unknown>): void {
  const details = status.details as { causes?: Array<{ field?: string; message?: string }> } | undefined;
  if (Array.isArray(details?.causes)) details.causes.sort((a, b) => `${a.field}\u0000${a.message}`.localeCompare(`${b.field}\u0000${b.message}`));
  if (typeof status.message === "string") {
    status.message = status.message.replace(/\[(.*)\]$/s, (_all, list: string) => `[${list.split(/, (?=[\w.[\]<>-]+: )/).sort().join(", ")}]`);
  }
}

/** A Table's Age cells count seconds since creation: they differ by when each server was asked. */
function ageCells(table: Record<string, unknown>): void {
  const columns = (table.columnDefinitions ?? []) as Array<{ name?: string; type?: string }>;
  const ages = columns.flatMap((c, i) => (c.name === "Age" || c.type === "date" ? [i] : []));
  for (const row of (table.rows ?? []) as Array<{ cells?: unknown[] }>) for (const i of ages) if (row.cells && i < row.cells.length) row.cells[i] = "<age>";
}

export class Normaliser {
  private uids = new Map<string, string>();

  /**
   * Names each object's own uid after the object (`<uid:namespace/name>`) before anything
   * refers to it, so that an object one server refused does not shift the others' numbers.
   */
  private learnUids(v: unknown): void {
    if (Array.isArray(v)) return v.forEach((x) => this.learnUids(x));
    if (!v || typeof v !== "object") return;
    const obj = v as Record<string, unknown>;
    const meta = obj.metadata as { uid?: unknown; name?: unknown; namespace?: unknown } | undefined;
    if (meta && typeof meta.uid === "string" && typeof meta.name === "string" && !this.uids.has(meta.uid)) {
      this.uids.set(meta.uid, `<uid:${typeof meta.namespace === "string" ? `${meta.namespace}/` : ""}${meta.name}>`);
    }
    for (const x of Object.values(obj)) this.learnUids(x);
  }

  value(v: unknown, key = "", parentKey = ""): unknown {
    if (key === "" && parentKey === "") this.learnUids(v);
    if (Array.isArray(v)) {
      const items = v.map((x) => this.value(x, key, parentKey));
      // The server orders entries by operation, then time, then manager: with times normalised away,
      // only operation and manager order is observable in both.
      return key === "managedFields" ? items.sort((a, b) => entryOrder(a).localeCompare(entryOrder(b))) : items;
    }
    if (v && typeof v === "object") {
      const out: Record<string, unknown> = {};
      const obj = v as Record<string, unknown>;
      for (const [k, x] of Object.entries(obj)) out[k] = this.value(x, k, key);
      if (obj.kind === "Status" && obj.reason === "Invalid") unorderCauses(out);
      if (obj.kind === "Table") ageCells(out);
      // Names the server generated from generateName: the random suffix differs.
      if (typeof obj.generateName === "string" && typeof obj.name === "string" && obj.name.startsWith(obj.generateName)) out.name = `${obj.generateName}<suffix>`;
      return out;
    }
    if (typeof v !== "string") {
      if (key === "nodePort" && typeof v === "number") return "<nodePort>";
      return v;
    }
    if (key === "uid" || UID.test(v)) return this.uid(v);
    if (key === "resourceVersion" && /^\d+$/.test(v)) return "<rv>";
    if (key === "continue" || key === "_continue") return v ? "<continue>" : v;
    if (TIME_KEYS.has(key) || (parentKey === "annotations" && key.endsWith("restartedAt"))) return v.replace(ISO_TIME, "<time>");
    if ((key === "clusterIP" || key === "clusterIPs") && IPV4.test(v)) return "<ip>";
    if (v.startsWith("-----BEGIN CERTIFICATE") || key === "caBundle" || key === "ca.crt") return "<certificate>";
    return this.text(v);
  }

  /** Strings inside objects and Status messages: embedded times, uids, resourceVersions in known messages. */
  text(s: string): string {
    return s
      .replace(ISO_TIME, "<time>")
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (u) => this.uid(u))
      .replace(/too old resource version: \d+ \(\d+\)/g, "too old resource version: <rv> (<rv>)")
      .replace(READ_ONLY_USER, 'User "<read-only>"');
  }

  /** kubectl's printed output: also table ages, allocated addresses and node ports. */
  output(s: string): string {
    return this.text(s)
      .replace(/(?<=\s)(\d+[smhd])+(?=\s|$)/gm, "<age>")
      .replace(/\b(10|192|172)\.\d+\.\d+\.\d+\b/g, "<ip>")
      .replace(/:3\d{4}\//g, ":<nodePort>/")
      // Column padding follows the widest value, and addresses differ in width between the servers' ranges.
      .replace(/ {2,}/g, "  ")
      .replace(/ +$/gm, "");
  }

  private uid(u: string): string {
    let n = this.uids.get(u);
    if (!n) {
      n = `<uid-${this.uids.size + 1}>`;
      this.uids.set(u, n);
    }
    return n;
  }
}

/** Leaf values by path: `a.b[0].c`. Empty objects and arrays are leaves of their own. */
export function flatten(v: unknown, prefix = "", out = new Map<string, unknown>()): Map<string, unknown> {
  if (Array.isArray(v)) {
    if (v.length === 0) out.set(prefix, []);
    v.forEach((x, i) => flatten(x, `${prefix}[${i}]`, out));
  } else if (v && typeof v === "object") {
    const entries = Object.entries(v as Record<string, unknown>);
    if (entries.length === 0) out.set(prefix, {});
    for (const [k, x] of entries) flatten(x, prefix ? `${prefix}.${/^[\w-]+$/.test(k) ? k : JSON.stringify(k)}` : k, out);
  } else {
    out.set(prefix, v);
  }
  return out;
}

export interface Difference {
  path: string;
  kubesim: unknown;
  real: unknown;
}

export const ABSENT = Symbol("absent");

export function compare(kubesim: unknown, real: unknown): { compared: number; equal: number; differences: Difference[] } {
  const a = flatten(kubesim);
  const b = flatten(real);
  const paths = [...new Set([...a.keys(), ...b.keys()])];
  const differences: Difference[] = [];
  let equal = 0;
  for (const p of paths) {
    const x = a.has(p) ? a.get(p) : ABSENT;
    const y = b.has(p) ? b.get(p) : ABSENT;
    if (x !== ABSENT && y !== ABSENT && JSON.stringify(x) === JSON.stringify(y)) equal += 1;
    else differences.push({ path: p, kubesim: x, real: y });
  }
  return { compared: paths.length, equal, differences };
}
