// Which configured repositories a webhook payload is about. URLs are compared
// in one canonical form (host lower-cased, no scheme, user, port, `.git` or
// trailing slash; `git@host:owner/repo` read as `host/owner/repo`), so the
// HTTPS clone URL in the payload matches an SSH URL in driftwatch.yaml.
import path from "node:path";
import type { RepositoryConfig } from "@/lib/config";
import type { PushInfo } from "./push";

/** Canonical form of a repository URL or local path; null when it cannot be one. */
export function canonicalRepoUrl(raw: string): string | null {
  let s = raw.trim();
  if (s === "") return null;
  const stripTail = (p: string) => p.replace(/\/+$/, "").replace(/\.git$/i, "").replace(/\/+$/, "");
  // scp-like SSH: [user@]host:path (no scheme, colon before the first slash)
  const scp = /^(?:[^@/\s]+@)?([^:/\s]+):(?!\/\/)(.+)$/.exec(s);
  if (scp && !/^[a-z]:[\\/]/i.test(s)) {
    const [, host = "", rest = ""] = scp;
    return `${host.toLowerCase()}/${stripTail(rest.replace(/^\/+/, ""))}`;
  }
  if (s.startsWith("file://")) s = s.slice("file://".length);
  if (s.startsWith("/")) return `file:${stripTail(path.posix.normalize(s))}`;
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return null;
  }
  const host = u.hostname.toLowerCase();
  if (!host) return null;
  return `${host}/${stripTail(decodeURIComponent(u.pathname).replace(/^\/+/, ""))}`;
}

/**
 * Repositories the payload names. A URL match is exact (canonical form). Only
 * when no URL matches does an `owner/name` path count, and then only if it
 * ends exactly one configured URL, since a mirror or internal hostname may
 * differ from what the host puts in its payload.
 */
export function matchRepositories(push: PushInfo, repos: readonly RepositoryConfig[]): RepositoryConfig[] {
  const wanted = new Set(push.urls.map(canonicalRepoUrl).filter((u): u is string => u !== null));
  const byUrl = repos.filter((r) => {
    const c = canonicalRepoUrl(r.url);
    return c !== null && wanted.has(c);
  });
  if (byUrl.length > 0) return byUrl;
  const paths = push.names.filter((n) => n.includes("/")).map((n) => n.replace(/\.git$/i, "").replace(/^\/+|\/+$/g, "").toLowerCase());
  for (const p of paths) {
    const hits = repos.filter((r) => {
      const c = canonicalRepoUrl(r.url)?.toLowerCase();
      return c !== undefined && (c.endsWith(`/${p}`) || c === p);
    });
    if (hits.length === 1) return hits;
  }
  return [];
}
