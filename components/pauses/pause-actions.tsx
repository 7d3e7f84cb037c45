"use client";
// Actions on one pause: resume it, or take ownership of an unattributed one
// (reason and expiry), which stops its alert.
import { useState, type FormEvent } from "react";
import { useAction } from "@/components/use-action";
import { sendJson, type SessionInfo } from "@/lib/dashboard/client";
import { canOperate } from "@/components/use-session";
import { DurationSelect, Field, FormButtons, FormError, buttonClass, inputClass, secondaryButtonClass } from "@/components/auth/form-bits";

export interface PauseLike {
  id: string;
  unattributed: boolean;
}

export function PauseActions({ pause, session, onDone }: { pause: PauseLike; session: SessionInfo | null; onDone?: () => void }) {
  const [mode, setMode] = useState<"idle" | "own">("idle");
  const [reason, setReason] = useState("");
  const [duration, setDuration] = useState("1h");
  const [notice, setNotice] = useState<string | null>(null);
  const mutation = useAction();
  const { busy, error } = mutation;
  if (!canOperate(session)) return null;
  const token = session?.csrfToken ?? null;

  const run = async (action: () => Promise<unknown>) => {
    if (!(await mutation.run(action))) return;
    setMode("idle");
    onDone?.();
  };

  const resume = () =>
    run(async () => {
      const r = await sendJson<{ pause: { resumedOnController: boolean } }>("POST", `/api/pauses/${pause.id}/resume`, token, {});
      setNotice(r.pause.resumedOnController ? "Resumed on the controller." : "Pause ended. Driftwatch has no write access here: resume the controller yourself.");
    });

  const own = (e: FormEvent) => {
    e.preventDefault();
    void run(() => sendJson("POST", `/api/pauses/${pause.id}/ownership`, token, { reason, duration }));
  };

  return (
    <div className="space-y-2">
      {mode === "own" ? (
        <form onSubmit={own} className="space-y-2 rounded border border-slate-200 bg-white p-3" aria-label="Take ownership of this pause">
          <Field label="Why is it paused? (required)">
            <textarea className={inputClass} rows={2} required minLength={3} value={reason} onChange={(e) => setReason(e.target.value)} />
          </Field>
          <Field label="Until">
            <DurationSelect value={duration} onChange={setDuration} />
          </Field>
          <FormButtons submit="Take ownership" disabled={busy || reason.trim().length < 3} onCancel={() => setMode("idle")} />
        </form>
      ) : (
        <div className="flex flex-wrap gap-2">
          {pause.unattributed && (
            <button type="button" className={buttonClass} onClick={() => setMode("own")} disabled={busy}>
              Take ownership…
            </button>
          )}
          <button type="button" className={secondaryButtonClass} onClick={resume} disabled={busy}>
            {busy ? "Resuming…" : "Resume reconciliation"}
          </button>
        </div>
      )}
      <FormError message={error} />
      {notice && (
        <p role="status" className="text-xs text-slate-600">
          {notice}
        </p>
      )}
    </div>
  );
}
