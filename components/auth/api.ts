"use client";
// Mutations from the browser: JSON body plus the session's CSRF token, read
// from the (deliberately script-readable) CSRF cookie. Errors carry the
// server's message, which always says what to do.

export class MutationError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "MutationError";
  }
}

export function csrfToken(): string | null {
  if (typeof document === "undefined") return null;
  const match = document.cookie.split(/;\s*/).find((c) => c.startsWith("driftwatch_csrf="));
  return match ? decodeURIComponent(match.slice("driftwatch_csrf=".length)) : null;
}

export async function sendJson<T>(method: "POST" | "PUT" | "PATCH" | "DELETE", url: string, body?: unknown, token: string | null = csrfToken()): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: { accept: "application/json", ...(body === undefined ? {} : { "content-type": "application/json" }), ...(token ? { "x-csrf-token": token } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
    });
  } catch {
    throw new MutationError(0, "The dashboard server cannot be reached.");
  }
  if (!res.ok) {
    let message = `${res.status} ${res.statusText}`;
    try {
      const parsed = (await res.json()) as { error?: { message?: string } };
      if (parsed.error?.message) message = parsed.error.message;
    } catch {
      // not JSON
    }
    if (res.status === 401) message = "Your session has ended: sign in again.";
    throw new MutationError(res.status, message);
  }
  return (await res.json()) as T;
}

/** The session shape these components need; the dashboard's SessionInfo fits it. */
export interface SessionLike {
  user: { username: string; role: "viewer" | "operator" | "admin" } | null;
  csrfToken: string | null;
}

export function canOperate(session: SessionLike | null | undefined): boolean {
  return session?.user?.role === "operator" || session?.user?.role === "admin";
}
