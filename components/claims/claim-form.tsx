"use client";
// Claim drift items as a temporary divergence: owner (you or a named user),
// reason, expiry, incident link, and how it returns to Git.
import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import { useQuery } from "@tanstack/react-query";
import { useAction } from "@/components/use-action";
import { fetchJson, queryKeys, sendJson, type SessionInfo } from "@/lib/dashboard/client";
import { canOperate } from "@/components/use-session";
import { DurationSelect, Field, FormButtons, FormError, inputClass, secondaryButtonClass } from "@/components/auth/form-bits";

export function ClaimForm({
  environment,
  driftItemIds,
  session,
  onDone,
}: {
  environment: string;
  driftItemIds: string[];
  session: SessionInfo | null;
  onDone?: () => void;
}) {
  const [open, setOpen] = useState(false);
  const [owner, setOwner] = useState("");
  const [reason, setReason] = useState("");
  const [duration, setDuration] = useState("4h");
  const [incidentUrl, setIncidentUrl] = useState("");
  const [returnPath, setReturnPath] = useState<"revert" | "adopt">("revert");
  const { busy, error, run } = useAction();
  const id = useId();
  // Keyboard: opening moves focus into the form; Escape or Cancel closes it and gives focus back to the button that opened it.
  const form = useRef<HTMLFormElement>(null);
  const opener = useRef<HTMLButtonElement>(null);
  const returnFocus = useRef(false);
  useEffect(() => {
    if (open) form.current?.querySelector<HTMLElement>("select, textarea, input")?.focus();
    else if (returnFocus.current) opener.current?.focus();
    returnFocus.current = false;
  }, [open]);
  const close = () => {
    returnFocus.current = true;
    setOpen(false);
  };
  const users = useQuery({
    queryKey: queryKeys.users,
    // Without the list the owner can still be "me": a failed read leaves just that choice.
    queryFn: () =>
      fetchJson<{ users: Array<{ username: string; displayName: string | null }> }>("/api/users").then(
        (r) => r.users,
        () => [],
      ),
    enabled: open,
    staleTime: 60_000,
  });

  if (!canOperate(session)) return null;
  if (driftItemIds.length === 0) return <p className="text-xs text-slate-500">Select drift items to claim them.</p>;
  if (!open) {
    return (
      <button ref={opener} type="button" className={secondaryButtonClass} onClick={() => setOpen(true)}>
        Claim {driftItemIds.length === 1 ? "this drift" : `${driftItemIds.length} drift items`}…
      </button>
    );
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    const body = { driftItemIds, owner: owner || undefined, reason, duration, incidentUrl: incidentUrl.trim() || undefined, returnPath };
    if (!(await run(() => sendJson("POST", "/api/claims", session?.csrfToken ?? null, body)))) return;
    setOpen(false);
    setReason("");
    onDone?.();
  }

  return (
    <form
      ref={form}
      onSubmit={submit}
      onKeyDown={(e: KeyboardEvent) => {
        if (e.key === "Escape") {
          e.preventDefault();
          close();
        }
      }}
      aria-labelledby={`${id}-title`} className="space-y-3 rounded-lg border border-sky-300 bg-sky-50 p-4">
      <h3 id={`${id}-title`} className="font-semibold text-slate-900">
        Claim {driftItemIds.length === 1 ? "this drift" : `${driftItemIds.length} drift items`} in {environment}
      </h3>
      <Field label="Owner">
        <select className={inputClass} value={owner} onChange={(e) => setOwner(e.target.value)}>
          <option value="">Me ({session?.user?.username})</option>
          {(users.data ?? [])
            .filter((u) => u.username !== session?.user?.username)
            .map((u) => (
              <option key={u.username} value={u.username}>
                {u.displayName ? `${u.displayName} (${u.username})` : u.username}
              </option>
            ))}
        </select>
      </Field>
      <Field label="Reason (required)">
        <textarea className={inputClass} required minLength={3} maxLength={2000} rows={2} value={reason} onChange={(e) => setReason(e.target.value)} />
      </Field>
      <Field label="Until">
        <DurationSelect value={duration} onChange={setDuration} />
      </Field>
      <Field label="Incident link (optional)">
        <input className={inputClass} type="url" placeholder="https://…" value={incidentUrl} onChange={(e) => setIncidentUrl(e.target.value)} />
      </Field>
      <fieldset className="text-sm">
        <legend className="font-medium text-slate-800">Return path</legend>
        <label className="mr-4 inline-flex items-center gap-1">
          <input type="radio" name={`${id}-rp`} checked={returnPath === "revert"} onChange={() => setReturnPath("revert")} /> Revert to Git
        </label>
        <label className="inline-flex items-center gap-1">
          <input type="radio" name={`${id}-rp`} checked={returnPath === "adopt"} onChange={() => setReturnPath("adopt")} /> Adopt into Git (Driftwatch prepares the patch)
        </label>
      </fieldset>
      <FormError message={error} />
      <FormButtons submit={busy ? "Claiming…" : "Claim"} disabled={busy || reason.trim().length < 3} onCancel={close} />
    </form>
  );
}
