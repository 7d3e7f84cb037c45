"use client";
// Mount points for the mutating flows (pause, resume, take ownership, claim).
// Their forms belong to the auth/audit side; the dashboard pages render these
// slots where the actions belong, with everything a form needs as props. Until
// a form is mounted here, each slot says which API call performs the action.
import type { PauseDto } from "@/lib/dashboard/dto";
import type { SessionInfo } from "@/lib/dashboard/client";

const hint = "text-xs text-slate-500";

export function PauseActionSlot({ environment, session }: { environment: string; session: SessionInfo | null }) {
  if (!session?.user || session.user.role === "viewer") return null;
  return (
    <p className={hint} data-slot="pause-environment" data-environment={environment}>
      Pause reconciliation: <code>POST /api/pauses</code>
    </p>
  );
}

export function ResumeActionSlot({ pause, session }: { pause: PauseDto; session: SessionInfo | null }) {
  if (!session?.user || session.user.role === "viewer") return null;
  return (
    <p className={hint} data-slot={pause.unattributed ? "take-ownership" : "resume-pause"} data-pause-id={pause.id}>
      {pause.unattributed ? (
        <>
          Take ownership: <code>POST /api/pauses/{pause.id}/ownership</code>
        </>
      ) : (
        <>
          Resume: <code>POST /api/pauses/{pause.id}/resume</code>
        </>
      )}
    </p>
  );
}

export function ClaimActionSlot({ environment, driftItemIds, session }: { environment: string; driftItemIds: string[]; session: SessionInfo | null }) {
  if (!session?.user || session.user.role === "viewer") return null;
  return (
    <p className={hint} data-slot="claim-drift" data-environment={environment} data-drift-item-ids={driftItemIds.join(",")}>
      {driftItemIds.length === 0 ? "Select drift items to claim them." : `Claim ${driftItemIds.length} selected: `}
      {driftItemIds.length > 0 && <code>POST /api/claims</code>}
    </p>
  );
}
