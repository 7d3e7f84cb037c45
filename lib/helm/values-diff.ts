// Git's values against the released ones, without keeping the released ones:
// each leaf of a release's config becomes a keyed digest under its path
// (`ui.message`, `extraEnvs[0].value`), and Git's values are compared leaf by
// leaf against those digests. What the page shows of Git's side is the value
// itself only where it cannot be a secret: a value taken from a Secret
// (valuesFrom) or under a secret-like key is masked.
import { hashBytes } from "@/lib/drift/secrets";
import { canonicalJson } from "@/lib/audit/canonical";

export interface ValuesDiffEntry {
  path: string;
  /** added: Git has it, the release does not; removed: the other way round; changed: both, different. */
  change: "added" | "removed" | "changed";
  /** Git's value as JSON text, or "(masked)"; null when Git has none. */
  git: string | null;
}

const SECRET_LIKE = /pass(word|wd)?|secret|token|credential|private|api[-_]?key|access[-_]?key|auth|cert|dsn|connection[-_]?string/i;
const MASKED = "(masked)";
/** A release with thousands of leaves is shown by its first differences; the rest are counted. */
export const MAX_DIFF_ENTRIES = 200;

function leaves(node: unknown, at: string, out: Map<string, unknown>): void {
  if (Array.isArray(node) && node.length > 0) node.forEach((v, i) => leaves(v, `${at}[${i}]`, out));
  else if (node && typeof node === "object" && !Array.isArray(node) && Object.keys(node).length > 0) {
    for (const [k, v] of Object.entries(node)) leaves(v, at ? `${at}.${k}` : k, out);
  } else out.set(at, node);
}

/** Path → keyed digest of every leaf (scalars, empty maps and lists) of a values tree. */
export function leafDigests(values: unknown, key: string | Uint8Array): Record<string, string> {
  const flat = new Map<string, unknown>();
  leaves(values ?? {}, "", flat);
  const out: Record<string, string> = {};
  for (const [path, v] of flat) if (path) out[path] = hashBytes(Buffer.from(canonicalJson(v), "utf8"), key);
  return out;
}

/** The leaves where Git's values and the release's differ, Git's side shown unless it could be a secret. */
export function valuesDiff(gitValues: unknown, secretStrings: readonly string[], released: Record<string, string>, key: string | Uint8Array): { entries: ValuesDiffEntry[]; total: number } {
  const git = new Map<string, unknown>();
  leaves(gitValues ?? {}, "", git);
  git.delete("");
  const secret = new Set(secretStrings);
  const show = (path: string, v: unknown) => (SECRET_LIKE.test(path) || (typeof v === "string" && secret.has(v)) ? MASKED : canonicalJson(v));
  const entries: ValuesDiffEntry[] = [];
  for (const [path, v] of git) {
    const theirs = released[path];
    if (theirs === undefined) entries.push({ path, change: "added", git: show(path, v) });
    else if (theirs !== hashBytes(Buffer.from(canonicalJson(v), "utf8"), key)) entries.push({ path, change: "changed", git: show(path, v) });
  }
  for (const path of Object.keys(released)) if (!git.has(path)) entries.push({ path, change: "removed", git: null });
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { entries: entries.slice(0, MAX_DIFF_ENTRIES), total: entries.length };
}
