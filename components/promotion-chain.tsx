// The promotion chain of one commit as a picture: the commit, then each
// environment in promotion order, each arrow labelled with how long that hop took.
import type { EnvironmentBadgeDto, Hop } from "@/lib/api/contract";
import { formatDuration } from "@/lib/dashboard/format";

// Tailwind classes rather than colours, so the dark theme recolours them (app/dark-theme.css).
const FILL: Record<EnvironmentBadgeDto["state"], string> = { live: "fill-green-700", pending: "fill-violet-600", "not-approved": "fill-slate-400", unknown: "fill-slate-300" };

const ORDER: Array<EnvironmentBadgeDto["state"]> = ["pending", "not-approved", "unknown", "live"];

/**
 * One step per environment. Where an environment answers per application,
 * it is live when all of them are, else the state of the least advanced
 * ("2 of 3 live" says how far it got).
 */
export function chainSteps(badges: readonly EnvironmentBadgeDto[]): Array<{ environment: string; state: EnvironmentBadgeDto["state"]; sub: string }> {
  const byEnvironment = new Map<string, EnvironmentBadgeDto[]>();
  for (const b of badges) byEnvironment.set(b.environment, [...(byEnvironment.get(b.environment) ?? []), b]);
  return [...byEnvironment].map(([environment, bs]) => {
    const state = ORDER.find((s) => bs.some((b) => b.state === s)) ?? "unknown";
    const live = bs.filter((b) => b.state === "live").length;
    const word = state === "not-approved" ? "not yet" : state;
    return { environment, state, sub: bs.length > 1 && state !== "live" ? `${word} · ${live} of ${bs.length} live` : word };
  });
}

export function PromotionChain({ shortSha, badges, hops }: { shortSha: string; badges: EnvironmentBadgeDto[]; hops: Hop[] }) {
  const step = 190;
  const width = 90 + step * new Set(badges.map((b) => b.environment)).size;
  const nodes = [{ label: shortSha, sub: "commit", fill: "fill-slate-900" }, ...chainSteps(badges).map((s) => ({ label: s.environment, sub: s.sub, fill: FILL[s.state] }))];
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
