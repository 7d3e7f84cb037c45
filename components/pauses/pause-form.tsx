"use client";
// Pause reconciliation of an environment, or of one application of it (its
// controller object): reason, expiry (bounded by the environment's maximum),
// optional incident link, and, for protected environments, the environment's
// name typed again.
import { useId, useState, type FormEvent } from "react";
import { useQuery } from "@tanstack/react-query";
import { useAction } from "@/components/use-action";
import { fetchJson, queryKeys, sendJson, type SessionInfo } from "@/lib/dashboard/client";
import { canOperate } from "@/components/use-session";
import { DurationSelect, Field, FormButtons, FormError, inputClass, secondaryButtonClass } from "@/components/auth/form-bits";

interface PausePolicy {
  environment: string;
  confirmPause: boolean;
  maxPauseMs: number;
  autoResume: boolean;
  controllerRef: string | null;
  /** Without a controller object of its own: each application's, suspended all or none. */
  controllerRefs: string[];
  executes: boolean;
}

function whatIsSuspended(p: PausePolicy): string {
  if (p.controllerRef || p.controllerRefs.length === 0) return `Driftwatch will suspend ${p.controllerRef} on the cluster and annotate it with your name, reason and expiry.`;
  const n = p.controllerRefs.length;
  return `Driftwatch will suspend the controller object of each of its ${n} ${n === 1 ? "application" : "applications"} (${p.controllerRefs.join(", ")}) on the cluster, all or none, and annotate each with your name, reason and expiry; resuming puts each back.`;
}

export function PauseForm({ environment, application, session, onDone }: { environment: string; application?: string; session: SessionInfo | null; onDone?: () => void }) {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState("");
  const [duration, setDuration] = useState("1h");
  const [incidentUrl, setIncidentUrl] = useState("");
  const [confirm, setConfirm] = useState("");
  const { busy, error, run } = useAction();
  const id = useId();
  const policy = useQuery({
    queryKey: queryKeys.pausePolicy(environment, application),
    queryFn: () => fetchJson<PausePolicy>(`/api/pauses/policy?environment=${encodeURIComponent(environment)}${application ? `&application=${encodeURIComponent(application)}` : ""}`),
    enabled: open,
    staleTime: 60_000,
  });

  if (!canOperate(session)) return null;
  if (!open) {
    return (
      <button type="button" className={secondaryButtonClass} onClick={() => setOpen(true)}>
        {application ? "Pause this application…" : "Pause reconciliation…"}
      </button>
    );
  }

  const p = policy.data;
  const needsConfirm = p?.confirmPause ?? false;

  async function submit(e: FormEvent) {
    e.preventDefault();
    const body = { environment, application, reason, duration, incidentUrl: incidentUrl.trim() || undefined, confirm: needsConfirm ? confirm : undefined };
    if (!(await run(() => sendJson("POST", "/api/pauses", session?.csrfToken ?? null, body)))) return;
    setOpen(false);
    setReason("");
    setConfirm("");
    onDone?.();
  }

  return (
    <form onSubmit={submit} aria-labelledby={`${id}-title`} className="space-y-3 rounded-lg border border-amber-300 bg-amber-50 p-4">
      <h3 id={`${id}-title`} className="font-semibold text-slate-900">
        Pause reconciliation of {application ? `${application} in ${environment}` : environment}
      </h3>
      {p && (
        <p className="text-xs text-slate-600">
          {p.executes
            ? whatIsSuspended(p)
            : "No write credential is configured: Driftwatch records the pause; suspend the controller yourself. The page shows whether the cluster agrees."}
          {p.autoResume ? " Reconciliation resumes by itself at expiry." : " At expiry an alert is raised."}
        </p>
      )}
      <Field label="Reason (required)">
        <textarea className={inputClass} required minLength={3} maxLength={2000} rows={2} value={reason} onChange={(e) => setReason(e.target.value)} />
      </Field>
      <Field label="Until" hint={p ? `At most ${Math.round(p.maxPauseMs / 3_600_000)} h in this environment.` : undefined}>
        <DurationSelect value={duration} onChange={setDuration} maxMs={p?.maxPauseMs} />
      </Field>
      <Field label="Incident link (optional)">
        <input className={inputClass} type="url" placeholder="https://…" value={incidentUrl} onChange={(e) => setIncidentUrl(e.target.value)} />
      </Field>
      {needsConfirm && (
        <Field label={`Type “${environment}” to confirm`}>
          <input className={inputClass} autoComplete="off" value={confirm} onChange={(e) => setConfirm(e.target.value)} />
        </Field>
      )}
      <FormError message={error ?? (policy.error instanceof Error ? policy.error.message : null)} />
      <FormButtons submit={busy ? "Pausing…" : "Pause"} disabled={busy || reason.trim().length < 3 || (needsConfirm && confirm !== environment)} onCancel={() => setOpen(false)} />
    </form>
  );
}
