"use client";
// Where the mutating flows (pause, resume, take ownership, claim) sit on the
// dashboard pages. Each slot shows its form only to operators and admins.
import type { PauseDto } from "@/lib/api/contract";
import type { SessionInfo } from "@/lib/dashboard/client";
import { PauseForm } from "@/components/pauses/pause-form";
import { PauseActions } from "@/components/pauses/pause-actions";
import { ClaimForm } from "@/components/claims/claim-form";
import { canOperate } from "@/components/use-session";

export function PauseActionSlot({ environment, session, activePause = false }: { environment: string; session: SessionInfo | null; activePause?: boolean }) {
  // A paused environment is resumed, not paused again.
  if (!canOperate(session) || activePause) return null;
  return <PauseForm environment={environment} session={session} />;
}

export function ResumeActionSlot({ pause, session }: { pause: PauseDto; session: SessionInfo | null }) {
  if (!canOperate(session)) return null;
  return <PauseActions pause={pause} session={session} />;
}

export function ClaimActionSlot({ environment, driftItemIds, session }: { environment: string; driftItemIds: string[]; session: SessionInfo | null }) {
  if (!canOperate(session)) return null;
  if (driftItemIds.length === 0) return <p className="text-xs text-slate-500">Select unowned drift items to claim them.</p>;
  return <ClaimForm environment={environment} driftItemIds={driftItemIds} session={session} />;
}
