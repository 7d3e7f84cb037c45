// One error type for everything Git-side. The collector records `category` on
// the run; `message` is shown to users and logged, so it is redacted here, at
// construction, rather than trusting every caller to remember.

export type GitErrorCategory = "git-auth" | "git-fetch" | "git-missing-ref" | "render";

export class GitError extends Error {
  readonly category: GitErrorCategory;

  /** `secrets`: values (tokens, header values) that must not survive into the message. */
  constructor(category: GitErrorCategory, message: string, secrets: readonly string[] = []) {
    super(redact(message, secrets));
    this.name = "GitError";
    this.category = category;
  }
}

export function isGitError(e: unknown): e is GitError {
  return e instanceof GitError;
}

// Any userinfo in an http(s) URL may be a token (`https://TOKEN@host`); elsewhere only a password is.
const HTTP_USERINFO = /(https?:\/\/)[^/@\s]+@/gi;
const URL_PASSWORD = /([a-z][a-z0-9+.-]*:\/\/[^/@\s:]*:)[^/@\s]+@/gi;
const AUTH_HEADER = /(authorization:\s*)(basic|bearer|token)?\s*[^\s'"]+/gi;
const BEARER = /\b(basic|bearer)\s+[A-Za-z0-9._~+/=-]{16,}/gi;

/**
 * Removes credentials from text that may come from git's stderr. Known secret
 * values are removed together with their base64 forms, because an HTTP Basic
 * header carries `user:token` base64-encoded.
 */
export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    for (const form of secretForms(secret)) out = out.split(form).join("[redacted]");
  }
  return out
    .replace(HTTP_USERINFO, "$1[redacted]@")
    .replace(URL_PASSWORD, "$1[redacted]@")
    .replace(AUTH_HEADER, "$1[redacted]")
    .replace(BEARER, "$1 [redacted]");
}

function secretForms(secret: string): string[] {
  const b64 = Buffer.from(secret, "utf8").toString("base64");
  return [secret, b64, b64.replace(/=+$/, ""), encodeURIComponent(secret)];
}

const NOISE = [
  /^(remote: )?(Counting|Compressing|Receiving|Resolving|Enumerating|Total|Unpacking)\b/,
  /^fatal: Could not read from remote repository\.?$/i,
  /^Please make sure you have the correct access rights$/i,
  /^and the repository exists\.?$/i,
];

/** The last meaningful lines of git's stderr, without progress noise. */
export function gitStderrSummary(stderr: string, maxLines = 3): string {
  const lines = stderr
    .split(/\r?\n|\r/)
    .map((l) => l.trim())
    .filter((l) => l && !NOISE.some((n) => n.test(l)));
  return lines.slice(-maxLines).join("; ");
}

const AUTH_PATTERNS = [
  /authentication failed/i,
  /could not read (username|password)/i,
  /terminal prompts disabled/i,
  /returned error: 40[13]\b/i,
  /permission denied \(publickey/i,
  /host key verification failed/i,
  /HTTP Basic: Access denied/i,
  /invalid credentials/i,
  /no such identity|identity file .* not accessible/i,
  /load key .*: (invalid format|bad permissions)/i,
];

const MISSING_REF_PATTERNS = [
  /unknown revision/i,
  /bad revision/i,
  /not a valid object name/i,
  /invalid object name/i,
  /ambiguous argument/i,
  /bad object/i,
  /couldn't find remote ref/i,
  /needed a single revision/i,
];

export function categoriseFetchFailure(stderr: string): GitErrorCategory {
  if (AUTH_PATTERNS.some((p) => p.test(stderr))) return "git-auth";
  return "git-fetch";
}

export function looksLikeMissingRef(stderr: string): boolean {
  return MISSING_REF_PATTERNS.some((p) => p.test(stderr));
}
