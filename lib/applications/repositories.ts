// Which repository (and which credential) a URL named by a controller object
// means. Controllers name the same repository in several spellings
// (https://host/org/repo.git, git@host:org/repo, a trailing slash), so URLs are
// compared by host and path. Credentials are matched by URL prefix, as Argo CD's
// credential templates are: one entry covers every repository of an
// organisation, and repositories nobody declared are still fetched with it.
import { createHash } from "node:crypto";
import type { CredentialConfig, DriftwatchConfig, RepositoryConfig } from "@/lib/config";
import type { ApplicationSource } from "./spec";

export type Transport = "https" | "http" | "ssh" | "other";

export interface NormalisedUrl {
  transport: Transport;
  /** `host[:port]/path`: lower-case host, default ports, userinfo, `.git` and slashes at the ends dropped. */
  key: string;
}

const DEFAULT_PORTS: Record<string, string> = { "https:": "443", "http:": "80", "ssh:": "22" };

// git@host:org/repo (scp-like; no scheme, a colon before the first slash).
const SCP_LIKE = /^(?:[^@/:]+@)?([^/:]+):(?!\/\/)(.*)$/;

function trimPath(path: string): string {
  return path.replace(/^\/+/, "").replace(/\/+$/, "").replace(/\.git$/, "").replace(/\/+$/, "");
}

export function normaliseRepositoryUrl(url: string): NormalisedUrl {
  const text = url.trim();
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    const scp = SCP_LIKE.exec(text);
    if (scp) return { transport: "ssh", key: `${(scp[1] ?? "").toLowerCase()}/${trimPath(scp[2] ?? "")}` };
    return { transport: "other", key: trimPath(text) };
  }
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    return { transport: "other", key: trimPath(text) };
  }
  const protocol = parsed.protocol.toLowerCase();
  const transport: Transport = protocol === "https:" ? "https" : protocol === "http:" ? "http" : protocol === "ssh:" || protocol === "git+ssh:" ? "ssh" : "other";
  const port = parsed.port && parsed.port !== DEFAULT_PORTS[protocol] ? `:${parsed.port}` : "";
  const host = parsed.hostname.toLowerCase();
  // Schemes that are not Git transports (oci://, s3://) stay apart from a Git repository on the same host.
  const scheme = transport === "other" ? `${protocol}//` : "";
  return { transport, key: `${scheme}${host}${port}/${trimPath(decodeURIComponent(parsed.pathname))}` };
}

/** The URL without a password or token in it; an ssh user (git@) is an address, not a secret, and stays. */
export function withoutCredentials(url: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return url;
  try {
    const parsed = new URL(url);
    if (!parsed.password && (parsed.protocol === "ssh:" || !parsed.username)) return url;
    if (parsed.protocol !== "ssh:") parsed.username = "";
    parsed.password = "";
    return parsed.toString().replace(/\/$/, url.endsWith("/") ? "/" : "");
  } catch {
    return url;
  }
}

function authFits(auth: RepositoryConfig["auth"], transport: Transport): boolean {
  if (auth.type === "token") return transport === "https" || transport === "http";
  if (auth.type === "ssh") return transport === "ssh";
  return true;
}

/** A repository name (driftwatch.yaml's rules: lower case, digits, '-', at most 63) derived from the URL. */
function synthesizedName(key: string): string {
  const slug = key.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
  const name = `auto-${slug}`;
  if (name.length <= 63) return name;
  const hash = createHash("sha256").update(key).digest("hex").slice(0, 8);
  return `${name.slice(0, 54).replace(/-+$/, "")}-${hash}`;
}

export interface ResolvedRepository {
  repository: RepositoryConfig;
  /** declared: in `repositories:`; credential: made up with a `credentials:` entry's auth; anonymous: neither matched. */
  origin: "declared" | "credential" | "anonymous";
  /** The matching credential's prefix (origin "credential"). */
  urlPrefix?: string;
}

export type RepositoryCatalog = Pick<DriftwatchConfig, "repositories" | "credentials">;

/** Whether a declared repository is the one a normalised URL names: its url or one of its aliases. */
function names(repo: RepositoryConfig, key: string): boolean {
  return [repo.url, ...(repo.aliases ?? [])].some((u) => normaliseRepositoryUrl(u).key === key);
}

/**
 * The declared repository a URL names (same host and path, whatever the
 * spelling; its url or one of its `aliases`), else one made up for it with the auth of the longest credential
 * prefix that covers it (and suits its transport: a token over https, a key
 * over ssh), else one without auth. The URL handed back never carries credentials.
 */
export function resolveRepository(url: string, catalog: RepositoryCatalog): ResolvedRepository {
  const target = normaliseRepositoryUrl(url);
  const declared = catalog.repositories.find((r) => names(r, target.key));
  if (declared) return { repository: declared, origin: "declared" };
  const clean = withoutCredentials(url.trim());
  let best: { credential: CredentialConfig; length: number } | undefined;
  for (const credential of catalog.credentials) {
    const prefix = normaliseRepositoryUrl(credential.urlPrefix).key.replace(/\/+$/, "");
    // On a path-segment boundary: the prefix .../acme does not cover .../acme-internal.
    const covers = target.key === prefix || target.key.startsWith(`${prefix}/`);
    if (covers && authFits(credential.auth, target.transport) && (!best || prefix.length > best.length)) best = { credential, length: prefix.length };
  }
  const name = synthesizedName(target.key);
  if (best) return { repository: { name, url: clean, auth: best.credential.auth }, origin: "credential", urlPrefix: best.credential.urlPrefix };
  return { repository: { name, url: clean, auth: { type: "none" } }, origin: "anonymous" };
}

export type SourceRepository = { ok: true; repository: RepositoryConfig; origin: "declared" | "credential" } | { ok: false; reason: string };

/**
 * The repository an application's source is fetched from: the one
 * driftwatch.yaml declares under the name the source carries, else the one its
 * URL names (declared, by url or alias), else one made up with a matching
 * credential's auth. A URL nothing in driftwatch.yaml covers is not fetched:
 * Driftwatch fetches only from what its configuration allows.
 */
export function repositoryOfSource(source: Pick<ApplicationSource, "url" | "repository">, catalog: RepositoryCatalog): SourceRepository {
  const named = source.repository ? catalog.repositories.find((r) => r.name === source.repository) : undefined;
  if (named) return { ok: true, repository: named, origin: "declared" };
  if (!source.url) return { ok: false, reason: "the source names no repository URL" };
  const resolved = resolveRepository(source.url, catalog);
  if (resolved.origin === "anonymous") return { ok: false, reason: `no repository or credential in driftwatch.yaml matches ${withoutCredentials(source.url)}` };
  return { ok: true, repository: resolved.repository, origin: resolved.origin };
}
