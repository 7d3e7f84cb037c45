"use client";
// Who is signed in, with their role, and a sign-out button. For the nav bar's
// `right` slot: <NavBar right={<UserMenu />} />.
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { sendJson } from "./api";

interface SessionAnswer {
  user: { username: string; displayName: string | null; role: string } | null;
  csrfToken: string | null;
}

export function UserMenu() {
  const [busy, setBusy] = useState(false);
  const session = useQuery({
    queryKey: ["session"],
    queryFn: async () => {
      const res = await fetch("/api/auth/session", { cache: "no-store" });
      if (!res.ok) throw new Error(`session check failed (${res.status})`);
      return (await res.json()) as SessionAnswer;
    },
    staleTime: 60_000,
  });
  const user = session.data?.user;
  if (!user) {
    return session.isLoading ? null : (
      <a href="/signin" className="rounded px-2 py-1 text-slate-700 hover:underline">
        Sign in
      </a>
    );
  }

  async function signOut() {
    setBusy(true);
    try {
      await sendJson("POST", "/api/auth/signout", {}, session.data?.csrfToken ?? undefined);
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
