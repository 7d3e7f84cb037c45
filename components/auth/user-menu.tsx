"use client";
// Who is signed in, with their role, and a sign-out button. For the nav bar's
// `right` slot: <NavBar right={<UserMenu />} />. Plain fetch rather than React
// Query, so it works outside the query provider (the layout renders the nav bar
// before <Providers>).
import { useEffect, useState } from "react";
import { sendJson } from "./api";

interface SessionAnswer {
  user: { username: string; displayName: string | null; role: string } | null;
  csrfToken: string | null;
}

export function UserMenu() {
  const [session, setSession] = useState<SessionAnswer | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let live = true;
    fetch("/api/auth/session", { cache: "no-store" })
      .then((r) => (r.ok ? (r.json() as Promise<SessionAnswer>) : null))
      .then((s) => live && setSession(s ?? { user: null, csrfToken: null }))
      .catch(() => live && setSession({ user: null, csrfToken: null }));
    return () => {
      live = false;
    };
  }, []);
  if (!session) return null;
  const user = session.user;
  if (!user) {
    return (
      <a href="/signin" className="rounded px-2 py-1 text-slate-700 hover:underline">
        Sign in
      </a>
    );
  }

  async function signOut() {
    setBusy(true);
    try {
      await sendJson("POST", "/api/auth/signout", {}, session?.csrfToken ?? undefined);
    } finally {
      window.location.assign("/signin");
    }
  }

  return (
    <div className="flex items-center gap-3">
      <span className="text-slate-700">
        <span className="font-medium text-slate-900">{user.displayName ?? user.username}</span>{" "}
        <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-600">{user.role}</span>
      </span>
      <button type="button" onClick={signOut} disabled={busy} className="rounded border border-slate-300 px-2 py-0.5 text-slate-700 hover:bg-slate-50">
        Sign out
      </button>
    </div>
  );
}
