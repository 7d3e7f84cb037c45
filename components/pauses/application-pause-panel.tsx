"use client";
// One application's pauses on its page: the pauses that hold it (its own, or
// the whole environment's) with who, why and until when, resume where the
// signed-in user may, and a form to pause just this application.
import { useRouter } from "next/navigation";
import type { PauseRecordDto } from "@/lib/api/contract";
import { useSession } from "@/components/use-session";
import { Ago, Time, useNow } from "@/components/time";
import { PauseActions } from "./pause-actions";
import { PauseForm } from "./pause-form";

export function ApplicationPausePanel({ environment, application, pauses, pausable, now: serverNow }: { environment: string; application: string; pauses: PauseRecordDto[]; pausable: boolean; now: string }) {
  const session = useSession().data ?? null;
  const router = useRouter();
  const now = useNow(serverNow);
  return (
    <section aria-labelledby="application-pauses" className="space-y-2">
      <h2 id="application-pauses" className="text-lg font-semibold text-slate-900">
        Reconciliation
      </h2>
      {pauses.length === 0 ? (
        <p className="text-sm text-slate-700">Not paused: the controller reconciles this application.</p>
      ) : (
        pauses.map((p) => (
          <div key={p.id} role="status" className={`rounded-lg border px-4 py-3 text-sm ${p.unattributed ? "border-amber-300 bg-amber-50 text-amber-950" : "border-sky-300 bg-sky-50 text-sky-950"}`}>
            <p className="font-semibold">
              {p.unattributed ? "Unattributed pause" : "Paused"}
              {p.application === application ? ` (${p.controllerRef ?? "this application"})` : " with the whole environment"}
              {p.expired && <span className="ml-2 rounded bg-red-100 px-1.5 text-red-800">expired</span>}
            </p>
            <p>
              {p.unattributed ? (
                <>
                  Seen suspended <Ago iso={p.startedAt} now={now} /> with no record in Driftwatch (manager <code>{p.detectedManager ?? "unknown"}</code>).
                </>
              ) : (
                <>
                  By <strong>{p.owner ?? p.createdBy ?? "unknown"}</strong> <Ago iso={p.startedAt} now={now} />
                  {p.reason && <> — “{p.reason}”</>}
                  {p.expiresAt && (
                    <>
                      . {p.expired ? "Expired" : "Until"} <Time iso={p.expiresAt} />
                    </>
                  )}
                </>
              )}
            </p>
            {p.application === application && (
              <div className="mt-2">
                <PauseActions pause={p} session={session} onDone={() => router.refresh()} />
              </div>
            )}
          </div>
        ))
      )}
      {pauses.length === 0 && pausable && <PauseForm environment={environment} application={application} session={session} onDone={() => router.refresh()} />}
    </section>
  );
}
