import type { ApplicationStatus } from "@/lib/applications/rollup";

const STYLES: Record<ApplicationStatus, string> = {
  "In sync": "bg-green-50 text-sync ring-green-600/30",
  Drifted: "bg-amber-50 text-drift ring-amber-600/30",
  Stale: "bg-violet-50 text-stale ring-violet-600/30",
  Paused: "bg-sky-50 text-paused ring-sky-600/30",
  "Collection failing": "bg-red-50 text-fail ring-red-600/30",
  Removed: "bg-slate-100 text-slate-700 ring-slate-400/40",
};

/** The status's colour and dot; `label` replaces the status word (a count such as "2 drifted" keeps its colour). */
export function ApplicationStatusBadge({ status, label }: { status: ApplicationStatus; label?: string }) {
  return (
    <span className={`inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${STYLES[status]}`}>
      <span aria-hidden="true" className="inline-block h-1.5 w-1.5 rounded-full bg-current" />
      {label ?? status}
    </span>
  );
}
