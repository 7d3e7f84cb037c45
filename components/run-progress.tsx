import type { RunDto } from "@/lib/api/contract";
import { formatAge } from "@/lib/dashboard/format";

const PHASES: Record<string, string> = {
  git: "fetching Git",
  render: "rendering manifests",
  discover: "discovering API resources",
  list: "reading live objects",
  compare: "comparing",
  store: "saving",
  done: "done",
};

/** "Reading live objects: 1,204 objects, 12 of 30 kinds". */
export function RunProgressLine({ run, now }: { run: RunDto; now?: number }) {
  if (run.status === "queued") {
    const waited = now ? now - Date.parse(run.queuedAt) : 0;
    // A run nobody picks up means no collector is running: say so instead of promising "a moment".
    return waited > 60_000 ? (
      <span className="text-amber-800">Queued {formatAge(waited)} ago and not started: is the collector running?</span>
    ) : (
      <span className="text-slate-600">Queued, starts in a moment…</span>
    );
  }
  const p = run.progress;
  if (run.status === "running") {
    return (
      <span className="text-slate-700">
        <span className="mr-1 inline-block h-2 w-2 animate-pulse rounded-full bg-blue-500" aria-hidden="true" />
        {p ? `${PHASES[p.phase] ?? p.phase}: ${p.objectsRead.toLocaleString()} objects read` : "starting"}
        {p && p.kindsTotal > 0 ? `, ${p.kindsDone} of ${p.kindsTotal} kinds` : ""}
      </span>
    );
  }
  if (run.status === "failed") return <span className="text-red-800">Failed: {run.errors[0]?.message ?? "see the server log"}</span>;
  return (
    <span className="text-green-800">
      {run.status === "partial" ? "Finished with warnings" : "Finished"}
      {run.stats?.live !== null && run.stats?.live !== undefined ? `: ${run.stats.live.toLocaleString()} live objects` : ""}
    </span>
  );
}
