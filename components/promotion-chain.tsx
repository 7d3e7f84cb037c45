// The promotion chain of one commit as a picture: the commit, then each
// environment in promotion order, each arrow labelled with how long that hop took.
import type { EnvironmentBadgeDto, Hop } from "@/lib/api/contract";
import { formatDuration } from "@/lib/dashboard/format";

// Tailwind classes rather than colours, so the dark theme recolours them (app/dark-theme.css).
const FILL: Record<EnvironmentBadgeDto["state"], string> = { live: "fill-green-700", pending: "fill-violet-600", "not-approved": "fill-slate-400", unknown: "fill-slate-300" };

export function PromotionChain({ shortSha, badges, hops }: { shortSha: string; badges: EnvironmentBadgeDto[]; hops: Hop[] }) {
  const step = 190;
  const width = 90 + step * badges.length;
  const nodes = [{ label: shortSha, sub: "commit", fill: "fill-slate-900" }, ...badges.map((b) => ({ label: b.environment, sub: b.state === "not-approved" ? "not yet" : b.state, fill: FILL[b.state] }))];
  const description = hops.map((h) => `${h.from ?? "commit"} to ${h.to}: ${h.durationMs === null ? "not yet" : formatDuration(h.durationMs)}`).join("; ");
  return (
    <div className="overflow-x-auto">
      <svg viewBox={`0 0 ${width} 110`} className="h-auto w-full min-w-[32rem] max-w-3xl" role="img" aria-label={`Promotion chain: ${description}`}>
        {hops.map((h, i) => {
          const x1 = 45 + i * step + 32;
          const x2 = 45 + (i + 1) * step - 32;
          const done = h.durationMs !== null;
          return (
            <g key={`${h.from}-${h.to}`}>
              <line x1={x1} y1={45} x2={x2} y2={45} className={done ? "stroke-slate-700" : "stroke-slate-300"} strokeWidth={2} strokeDasharray={done ? undefined : "5 4"} markerEnd="url(#arrow)" />
              <text x={(x1 + x2) / 2} y={35} textAnchor="middle" fontSize={13} className={done ? "fill-slate-900" : "fill-slate-500"}>
                {done ? formatDuration(h.durationMs) : "not yet"}
              </text>
            </g>
          );
        })}
        {nodes.map((n, i) => (
          <g key={n.label + i}>
            <circle cx={45 + i * step} cy={45} r={24} className={n.fill} />
            <text x={45 + i * step} y={85} textAnchor="middle" fontSize={13} fontWeight={600} className="fill-slate-900">
              {n.label}
            </text>
            <text x={45 + i * step} y={102} textAnchor="middle" fontSize={11} className="fill-slate-600">
              {n.sub}
            </text>
          </g>
        ))}
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="5" markerHeight="5" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" className="fill-slate-700" />
          </marker>
        </defs>
      </svg>
    </div>
  );
}
