"use client";
// The sign-in form: local account and/or single sign-on, as configured.
import { useState, type FormEvent } from "react";
import { sendJson } from "@/lib/dashboard/client";
import { Field, FormError, buttonClass, inputClass, secondaryButtonClass } from "./form-bits";

export function SignInForm({ local, oidc, next, error }: { local: boolean; oidc: boolean; next: string; error: string | null }) {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [message, setMessage] = useState<string | null>(error);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setMessage(null);
    try {
      const body = await sendJson<{ next?: string }>("POST", "/api/auth/signin", null, { username, password, next }, { needsSession: false });
      window.location.assign(body.next ?? "/");
    } catch (err) {
      setMessage(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="mx-auto mt-10 max-w-sm space-y-4 rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
      <h1 className="text-xl font-semibold text-slate-900">Sign in to Driftwatch</h1>
      <FormError message={message} />
      {oidc && (
        <a href={`/api/auth/oidc/start?next=${encodeURIComponent(next)}`} className={`${local ? secondaryButtonClass : buttonClass} block text-center`}>
          Sign in with single sign-on
        </a>
      )}
      {local && (
        <form onSubmit={submit} className="space-y-3" aria-label="Sign in with a Driftwatch account">
          <Field label="Username">
            <input className={inputClass} name="username" autoComplete="username" required value={username} onChange={(e) => setUsername(e.target.value)} />
          </Field>
          <Field label="Password">
            <input className={inputClass} name="password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
          </Field>
          <button type="submit" className={`${buttonClass} w-full`} disabled={busy}>
            {busy ? "Signing in…" : "Sign in"}
          </button>
        </form>
      )}
      {!local && !oidc && <p className="text-sm text-slate-700">No sign-in method is enabled in driftwatch.yaml (auth.local or auth.oidc).</p>}
    </div>
  );
}
