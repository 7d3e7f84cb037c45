"use client";
// Actions on an active claim: download the adopt patch, transfer it to
// someone, release it.
import { useState, type FormEvent } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { canOperate, sendJson, type SessionLike } from "@/components/auth/api";
import { Field, FormError, buttonClass, inputClass, secondaryButtonClass } from "@/components/auth/form-bits";

export interface ClaimLike {
  id: string;
  owner: string | { username: string };
  status: string;
  returnPath: "revert" | "adopt";
}

export function ClaimActions({ claim, session }: { claim: ClaimLike; session: SessionLike | null }) {
  const [mode, setMode] = useState<"idle" | "transfer">("idle");
  const [to, setTo] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const qc = useQueryClient();
  const users = useQuery({
    queryKey: ["users"],
    queryFn: async () => {
      const res = await fetch("/api/users", { cache: "no-store" });
      if (!res.ok) return [];
      return ((await res.json()) as { users: Array<{ username: string }> }).users;
    },
    enabled: mode === "transfer",
    staleTime: 60_000,
  });
  const owner = typeof claim.owner === "string" ? claim.owner : claim.owner.username;
  const patchLink = (
    <a className="text-sm text-sky-800 underline" href={`/api/claims/${claim.id}/adopt.patch`} download>
      Download adopt patch
    </a>
  );
  if (claim.status !== "active") return claim.returnPath === "adopt" ? patchLink : null;
  if (!canOperate(session)) return claim.returnPath === "adopt" ? patchLink : null;
  const token = session?.csrfToken ?? undefined;

  async function run(action: () => Promise<unknown>) {
    setError(null);
    setBusy(true);
    try {
      await action();
      await qc.invalidateQueries();
      setMode("idle");
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  }

  const transfer = (e: FormEvent) => {
    e.preventDefault();
    void run(() => sendJson("POST", `/api/claims/${claim.id}/transfer`, { owner: to }, token));
  };

  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center gap-2">
        {claim.returnPath === "adopt" && patchLink}
        {mode === "idle" && (
          <>
            <button type="button" className={secondaryButtonClass} onClick={() => setMode("transfer")} disabled={busy}>
              Transfer…
            </button>
            <button type="button" className={secondaryButtonClass} onClick={() => void run(() => sendJson("POST", `/api/claims/${claim.id}/release`, {}, token))} disabled={busy}>
              Release
            </button>
          </>
        )}
      </div>
      {mode === "transfer" && (
        <form onSubmit={transfer} className="flex flex-wrap items-end gap-2" aria-label="Transfer this claim">
          <Field label="New owner">
            <select className={inputClass} value={to} onChange={(e) => setTo(e.target.value)} required>
              <option value="">Choose…</option>
              {(users.data ?? [])
                .filter((u) => u.username !== owner)
                .map((u) => (
                  <option key={u.username} value={u.username}>
                    {u.username}
                  </option>
                ))}
            </select>
          </Field>
          <button type="submit" className={buttonClass} disabled={busy || !to}>
            Transfer
          </button>
          <button type="button" className={secondaryButtonClass} onClick={() => setMode("idle")}>
            Cancel
          </button>
        </form>
      )}
      <FormError message={error} />
    </div>
  );
}
