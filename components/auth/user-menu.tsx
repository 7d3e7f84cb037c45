"use client";
// Who is signed in, with their role, and a sign-out button. For the nav bar's
// `right` slot: <NavBar right={<UserMenu />} />, inside the query provider, so
// it shares the session query (useSession) with every page's role checks.
import { useState } from "react";
import { sendJson } from "@/lib/dashboard/client";
import { useSession } from "@/components/use-session";

export function UserMenu() {
  const session = useSession();
  const [busy, setBusy] = useState(false);
  if (session.isPending) return null;
  const user = session.data?.user ?? null;
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
      await sendJson("POST", "/api/auth/signout", session.data?.csrfToken ?? null, {});
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
