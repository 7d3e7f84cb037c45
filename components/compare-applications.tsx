// The applications of two environments side by side, matched by promotion
// key: which commit each runs and how much drift it has, and a button that
// narrows the object comparison to one of them.
import type { CompareApplicationDto } from "@/lib/api/contract";
import { Pill } from "./status-badge";

type Side = CompareApplicationDto["from"];

function SideCell({ side }: { side: Side }) {
  if (!side) return <em className="text-slate-500">absent</em>;
  return (
    <span className="flex flex-wrap items-center gap-x-2">
      <span className="font-medium">{side.name}</span>
      <span className="font-mono text-xs">{side.appliedSha ? side.appliedSha.slice(0, 7) : "not applied"}</span>
      {side.driftCount > 0 && <Pill tone="amber">{side.driftCount === 1 ? "1 drifted" : `${side.driftCount} drifted`}</Pill>}
    </span>
  );
}

export function CompareApplications({
  applications,
  from,
  to,
  chosen,
  onChoose,
}: {
  applications: CompareApplicationDto[];
  from: string;
  to: string;
  /** The promotion key the objects are narrowed to, or null. */
  chosen: string | null;
  onChoose: (promotionKey: string | null) => void;
}) {
  const differing = applications.filter((a) => !a.sameRevision).length;
  return (
    <section aria-labelledby="compare-applications" className="rounded-lg border border-slate-200 bg-white">
      <div className="flex flex-wrap items-baseline justify-between gap-2 px-3 pt-3">
        <h2 id="compare-applications" className="text-sm font-semibold">
          Applications
        </h2>
        <p className="text-xs text-slate-600">
          {applications.length} matched by promotion key · {differing === 0 ? "all run the same commit" : `${differing} on a different commit or missing`}
        </p>
      </div>
      <div className="overflow-x-auto">
        <table className="min-w-full text-left text-sm">
          <thead className="text-xs text-slate-600">
            <tr>
              <th scope="col" className="px-3 py-1 font-medium">
                Application
              </th>
              <th scope="col" className="px-3 py-1 font-medium">
                {from}
              </th>
              <th scope="col" className="px-3 py-1 font-medium">
                {to}
              </th>
              <th scope="col" className="px-3 py-1 font-medium">
                <span className="sr-only">Compare</span>
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {applications.map((a) => (
              <tr key={a.promotionKey} aria-current={chosen === a.promotionKey ? "true" : undefined} className={chosen === a.promotionKey ? "bg-sky-50" : undefined}>
                <th scope="row" className="px-3 py-1.5 font-normal">
                  {a.promotionKey}
                  {a.from && a.to && <span className="ml-2">{a.sameRevision ? <Pill tone="green">same commit</Pill> : <Pill tone="amber">different commit</Pill>}</span>}
                </th>
                <td className="px-3 py-1.5">
                  <SideCell side={a.from} />
                </td>
                <td className="px-3 py-1.5">
                  <SideCell side={a.to} />
                </td>
                <td className="px-3 py-1.5 text-right">
                  {chosen === a.promotionKey ? (
                    <button type="button" onClick={() => onChoose(null)} className="rounded px-2 py-1 text-xs text-blue-700 underline-offset-2 hover:underline">
                      All applications
                    </button>
                  ) : (
                    <button type="button" onClick={() => onChoose(a.promotionKey)} className="rounded px-2 py-1 text-xs text-blue-700 underline-offset-2 hover:underline">
                      Compare objects<span className="sr-only"> of {a.promotionKey}</span>
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
