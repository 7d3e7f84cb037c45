import type { EnvironmentStatus } from "@/lib/environments/status";

const STYLES: Record<EnvironmentStatus, string> = {
  "In sync": "bg-green-50 text-sync ring-green-600/30",
  Drifted: "bg-amber-50 text-drift ring-amber-600/30",
  Stale: "bg-violet-50 text-stale ring-violet-600/30",
  Paused: "bg-sky-50 text-paused ring-sky-600/30",
  "Collection failing": "bg-red-50 text-fail ring-red-600/30",
  "Not collected yet": "bg-slate-100 text-slate-700 ring-slate-400/40",
};

export function StatusBadge({ status, reason, size = "md" }: { status: EnvironmentStatus; reason?: string; size?: "sm" | "md" }) {
  return (
    <span
      title={reason}
      className={`inline-flex items-center gap-1 rounded-full font-medium ring-1 ring-inset ${STYLES[status]} ${size === "sm" ? "px-2 py-0.5 text-xs" : "px-2.5 py-1 text-sm"}`}
    >
      <span aria-hidden="true" className="inline-block h-1.5 w-1.5 rounded-full bg-current" />
      {status}
    </span>
  );
}

const DRIFT: Record<string, string> = {
  Modified: "bg-amber-50 text-amber-800 ring-amber-600/30",
  Missing: "bg-red-50 text-red-800 ring-red-600/30",
  Extra: "bg-indigo-50 text-indigo-800 ring-indigo-600/30",
};

export function DriftTypeBadge({ type }: { type: string }) {
  return <span className={`inline-block rounded px-1.5 py-0.5 text-xs font-medium ring-1 ring-inset ${DRIFT[type] ?? "bg-slate-100 text-slate-700 ring-slate-400/40"}`}>{type}</span>;
}

export function Pill({ children, tone = "slate", title }: { children: React.ReactNode; tone?: "slate" | "amber" | "red" | "green" | "sky" | "violet"; title?: string }) {
  const tones = {
    slate: "bg-slate-100 text-slate-700",
    amber: "bg-amber-100 text-amber-900",
    red: "bg-red-100 text-red-800",
    green: "bg-green-100 text-green-800",
    sky: "bg-sky-100 text-sky-900",
    violet: "bg-violet-100 text-violet-900",
  };
  return (
    <span title={title} className={`inline-block rounded px-1.5 py-0.5 text-xs font-medium ${tones[tone]}`}>
      {children}
    </span>
  );
}
