// Browser side of the dashboard API: the one fetch helper (reads and
// mutations) whose errors carry the HTTP status and the server's message (the
// query client never retries a 4xx), the session's shape, and the query keys
// every page shares, so a refresh in one place updates the others.
export class ApiFetchError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "ApiFetchError";
  }
}

export interface FetchJsonOptions extends RequestInit {
  /** False for the sign-in request itself: its 401 is about the credentials, not an ended session. */
  needsSession?: boolean;
}

export async function fetchJson<T>(url: string, { needsSession = true, ...init }: FetchJsonOptions = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, headers: { accept: "application/json", ...init.headers }, cache: "no-store" });
  } catch {
    throw new ApiFetchError(0, "The dashboard server cannot be reached. Check that Driftwatch is running.");
  }
  if (!res.ok) {
    let message = `${res.status} ${res.statusText}`;
    try {
      const body = (await res.json()) as { error?: { message?: string } };
      if (body.error?.message) message = body.error.message;
    } catch {
      // not JSON: keep the status line
    }
    if (res.status === 401 && needsSession) message = "Your session has ended: sign in again.";
    throw new ApiFetchError(res.status, message);
  }
  return (await res.json()) as T;
}

/**
 * How often pages poll while the change stream (GET /api/live) is down; while
 * it is up they refetch when it says what changed (components/live).
 */
export const FALLBACK_POLL_MS = 15_000;

export const queryKeys = {
  environments: ["environments"] as const,
  environment: (name: string) => ["environment", name] as const,
  drift: (name: string, params: string) => ["drift", name, params] as const,
  /** Every drift query of one environment, whatever its filters (a prefix, for invalidating). */
  driftOfEnvironment: (name: string) => ["drift", name] as const,
  object: (name: string, key: string) => ["object", name, key] as const,
  commit: (sha: string) => ["commit", sha] as const,
  lineage: ["lineage"] as const,
  timeline: (params: string) => ["timeline", params] as const,
  compare: (params: string) => ["compare", params] as const,
  metrics: (days: number, application: string | null = null) => ["metrics", days, application] as const,
  run: (id: number) => ["run", id] as const,
  session: ["session"] as const,
  users: ["users"] as const,
  pausePolicy: (environment: string, application?: string) => ["pause-policy", environment, application ?? null] as const,
  audit: (query: string) => ["audit", query] as const,
  auditVerify: ["audit-verify"] as const,
};

export interface SessionInfo {
  user: { username: string; displayName: string | null; role: "viewer" | "operator" | "admin" } | null;
  csrfToken: string | null;
}

/**
 * A mutation: JSON body, the session's CSRF token (from /api/auth/session,
 * see useSession). The answer's JSON, or an ApiFetchError with the server's message.
 */
export async function sendJson<T>(method: "POST" | "PUT" | "PATCH" | "DELETE", url: string, csrfToken: string | null, body?: unknown, opts: { needsSession?: boolean } = {}): Promise<T> {
  return fetchJson<T>(url, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...(csrfToken ? { "x-csrf-token": csrfToken } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
    needsSession: opts.needsSession,
  });
}
