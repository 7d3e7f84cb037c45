"use client";
// The panels and banners around the environment page: who paused it, a
// "Refresh now" button that follows its run (rollback guidance: components/rollback-guidance.tsx).
import { useEffect, useRef, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { ResumeActionSlot } from "@/components/action-slots";
import { RunProgressLine } from "@/components/run-progress";
import { Ago, Time } from "@/components/time";
import { canOperate } from "@/components/use-session";
import { fetchJson, queryKeys, sendJson, type SessionInfo } from "@/lib/dashboard/client";
import type { PauseDto, RunDto } from "@/lib/api/contract";

export function Panel({ title, children, id }: { title: string; children: React.ReactNode; id?: string }) {
  return (
    <section aria-labelledby={id ?? title} className="min-w-0 rounded-lg border border-slate-200 bg-white p-4">
      <h2 id={id ?? title} className="mb-3 text-base font-semibold">
        {title}
      </h2>
      {children}
    </section>
  );
}

export function RefreshNow({ env, active, session, onDone, now }: { env: string; active: RunDto | null; session: SessionInfo | null; onDone: () => void; now: number }) {
  const [runId, setRunId] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const run = useQuery({
    queryKey: queryKeys.run(runId ?? 0),
    queryFn: () => fetchJson<RunDto>(`/api/runs/${runId}`),
    enabled: runId !== null,
    refetchInterval: (q) => (q.state.data && ["succeeded", "partial", "failed"].includes(q.state.data.status) ? false : 1_000),
  });
  const finished = run.data && ["succeeded", "partial", "failed"].includes(run.data.status);
  const done = useRef<number | null>(null);
  useEffect(() => {
    if (finished && runId !== null && done.current !== runId) {
      done.current = runId;
      onDone();
    }
  }, [finished, runId, onDone]);
  const shown = run.data ?? active;
  const busy = (runId !== null && !finished) || (active !== null && runId === null);
  return (
    <div className="flex flex-col items-start gap-1 sm:items-end">
      {canOperate(session) && (
        <button
          type="button"
          disabled={busy}
          onClick={async () => {
            setError(null);
            try {
              const r = await sendJson<{ runId: number }>("POST", `/api/environments/${encodeURIComponent(env)}/refresh`, session?.csrfToken ?? null);
              setRunId(r.runId);
            } catch (e) {
              setError(e instanceof Error ? e.message : String(e));
            }
          }}
          className="rounded bg-slate-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-slate-700 disabled:cursor-wait disabled:bg-slate-400"
        >
          {busy ? "Collecting…" : "Refresh now"}
        </button>
      )}
      <p aria-live="polite" className="text-sm">
        {shown && <RunProgressLine run={shown} now={now} />}
        {error && <span className="text-red-800">{error}</span>}
      </p>
    </div>
  );
}

export function PauseBanner({ pauses, now, session }: { pauses: PauseDto[]; now: number; session: SessionInfo | null }) {
  if (pauses.length === 0) return null;
  return (
    <div className="space-y-2">
      {pauses.map((p) => (
        <div key={p.id} role="status" className={`rounded-lg border px-4 py-3 text-sm ${p.unattributed ? "border-amber-300 bg-amber-50 text-amber-950" : "border-sky-300 bg-sky-50 text-sky-950"}`}>
          <p className="font-semibold">
            {p.unattributed ? "Unattributed pause" : "Reconciliation paused"}
            {p.controllerRef ? `: ${p.controllerRef}` : " for the whole environment"}
            {p.expired && <span className="ml-2 rounded bg-red-100 px-1.5 text-red-800">expired</span>}
          </p>
          {p.unattributed ? (
            <p>
              Seen suspended in the cluster <Ago iso={p.startedAt} now={now} /> with no record in Driftwatch. Last written by manager <code>{p.detectedManager ?? "unknown"}</code>
              {p.detectedAt && (
                <>
                  {" "}
                  at <Time iso={p.detectedAt} />
                </>
              )}
              . Someone should take ownership with a reason and an expiry.
            </p>
          ) : (
            <p>
              By <strong>{p.createdBy?.displayName ?? p.createdBy?.username ?? "unknown"}</strong> <Ago iso={p.startedAt} now={now} />
              {p.reason && <> — “{p.reason}”</>}
              {p.expiresAt && (
                <>
                  . {p.expired ? "Expired" : "Until"} <Time iso={p.expiresAt} /> (<Ago iso={p.expiresAt} now={now} />)
                </>
              )}
              {p.incidentUrl && (
                <>
                  {" "}
                  ·{" "}
                  <a href={p.incidentUrl} className="underline" rel="noreferrer" target="_blank">
                    incident
                  </a>
                </>
              )}
              {p.executed ? " · suspended on the controller" : " · recorded only (no write access to the controller)"}
            </p>
          )}
          <ResumeActionSlot pause={p} session={session} />
        </div>
      ))}
    </div>
  );
}
