// How git reaches a repository: which URL, which environment. Credentials go
// to the git child through its environment only (GIT_CONFIG_* / GIT_SSH_COMMAND),
// never onto its command line (visible in `ps`) nor into the mirror's config.
import { accessSync, constants } from "node:fs";
import path from "node:path";
import type { RepositoryConfig } from "@/lib/config/schema";
import { namedVariable } from "@/lib/env";
import { GitError } from "./errors";

export type RemoteKind = "local" | "file" | "http" | "ssh" | "git";

export interface RemoteAccess {
  kind: RemoteKind;
  /** What git is given to fetch from (local paths made absolute). */
  url: string;
  /** Extra environment for the git child. */
  env: Record<string, string>;
  /** Values that must be redacted from anything git says. */
  secrets: string[];
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

export function remoteKind(url: string): RemoteKind {
  if (/^[a-z][a-z0-9+.-]*::/i.test(url)) {
    // `ext::sh -c …` and friends run programs; nothing in driftwatch.yaml needs them.
    throw new GitError("git-fetch", `unsupported repository URL "${url}": transport helpers (xxx::) are not allowed`);
  }
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme === "file") return "file";
  if (scheme === "http" || scheme === "https") return "http";
  if (scheme === "ssh" || scheme === "git+ssh" || scheme === "ssh+git") return "ssh";
  if (scheme === "git") return "git";
  if (scheme) throw new GitError("git-fetch", `unsupported repository URL scheme "${scheme}://"`);
  // scp-like `user@host:path` or `host:path` — a colon before the first slash.
  if (/^[^/:]+:/.test(url) && !/^[a-z]:[\\/]/i.test(url)) return "ssh";
  return "local";
}

/**
 * Reads the credential named by the config (the operator chooses the variable).
 */
function readToken(repo: RepositoryConfig, tokenEnv: string): string {
  const token = namedVariable(tokenEnv);
  if (!token) {
    throw new GitError(
      "git-auth",
      `repository "${repo.name}": environment variable ${tokenEnv} (auth.tokenEnv) is not set or empty`,
    );
  }
  return token;
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

function readable(file: string): boolean {
  try {
    accessSync(file, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

export function sshCommand(opts: { keyFile?: string; knownHostsFile?: string; connectTimeoutS?: number }): string {
  const parts = ["ssh", "-o", "BatchMode=yes", "-o", `ConnectTimeout=${opts.connectTimeoutS ?? 30}`];
  if (opts.keyFile) parts.push("-i", shellQuote(path.resolve(opts.keyFile)), "-o", "IdentitiesOnly=yes");
  // Unknown hosts are refused rather than trusted on first use: a collector
  // has nobody to ask, and accepting silently would defeat the check.
  parts.push("-o", "StrictHostKeyChecking=yes");
  if (opts.knownHostsFile) parts.push("-o", `UserKnownHostsFile=${shellQuote(path.resolve(opts.knownHostsFile))}`);
  return parts.join(" ");
}

export function remoteAccess(repo: RepositoryConfig, opts: { timeoutMs?: number } = {}): RemoteAccess {
  const kind = remoteKind(repo.url);
  const auth = repo.auth;
  // Credential helpers configured on the host would be asked first and could
  // store our token on success; an empty value clears the inherited list.
  const config: [string, string][] = [["credential.helper", ""]];
  const env: Record<string, string> = {};
  const secrets: string[] = [];
  let url = repo.url;

  if (kind === "local") url = path.resolve(repo.url);

  if (auth.type === "token") {
    if (kind !== "http") {
      throw new GitError("git-auth", `repository "${repo.name}": token auth needs an https:// URL, got a ${kind} URL`);
    }
    const parsed = new URL(repo.url);
    if (parsed.protocol === "http:" && !LOOPBACK.has(parsed.hostname)) {
      throw new GitError(
        "git-auth",
        `repository "${repo.name}": refusing to send a token over plain http:// to ${parsed.host}; use https://`,
      );
    }
    const token = readToken(repo, auth.tokenEnv);
    const basic = Buffer.from(`${auth.username}:${token}`, "utf8").toString("base64");
    // Scoped to the origin so the header is never offered to another host.
    config.push([`http.${parsed.origin}/.extraHeader`, `Authorization: Basic ${basic}`]);
    secrets.push(token, basic, `${auth.username}:${token}`);
  } else if (auth.type === "ssh") {
    if (kind !== "ssh") {
      throw new GitError("git-auth", `repository "${repo.name}": ssh auth needs an ssh URL (ssh://… or user@host:path)`);
    }
    if (!readable(auth.keyFile)) {
      throw new GitError("git-auth", `repository "${repo.name}": SSH key file ${auth.keyFile} is missing or not readable`);
    }
    if (auth.knownHostsFile && !readable(auth.knownHostsFile)) {
      throw new GitError(
        "git-auth",
        `repository "${repo.name}": known hosts file ${auth.knownHostsFile} is missing or not readable`,
      );
    }
  }

  if (kind === "ssh") {
    env.GIT_SSH_COMMAND = sshCommand({
      keyFile: auth.type === "ssh" ? auth.keyFile : undefined,
      knownHostsFile: auth.type === "ssh" ? auth.knownHostsFile : undefined,
      connectTimeoutS: Math.max(5, Math.min(60, Math.round((opts.timeoutMs ?? 60_000) / 2000))),
    });
  }

  env.GIT_CONFIG_COUNT = String(config.length);
  config.forEach(([k, v], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = k;
    env[`GIT_CONFIG_VALUE_${i}`] = v;
  });
  return { kind, url, env, secrets };
}
