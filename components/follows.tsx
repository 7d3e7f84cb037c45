import type { ApplicationSummaryDto } from "@/lib/api/contract";

type Source = ApplicationSummaryDto["sources"][number];

/**
 * What each source follows: "tag v1.2.3", "semver >=1.0 <2 → v1.4.0",
 * "commit abc1234", "default branch (main)". The ref as the controller names
 * it is the title, for a range or a commit shown shortened.
 */
export function Follows({ sources }: { sources: readonly Source[] }) {
  if (sources.length === 0) return <span className="text-slate-500">—</span>;
  return (
    <ul className="space-y-0.5">
      {sources.map((s, i) => (
        <li key={i} data-testid="follows" title={s.follows.ref}>
          {s.follows.text}
          {sources.length > 1 && <span className="text-xs text-slate-500"> ({s.repository ?? s.url})</span>}
        </li>
      ))}
    </ul>
  );
}
