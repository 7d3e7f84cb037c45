import type { ApplicationSummaryDto } from "@/lib/api/contract";
import { RevisionText } from "@/components/revision";

type Source = ApplicationSummaryDto["sources"][number];

/**
 * Every source of an application (an Argo CD multi-source application's
 * `spec.sources`, in order, or a chart from a Helm repository): where it is
 * read from, what it follows, and its approved and applied revision.
 */
export function ApplicationSources({ sources }: { sources: readonly Source[] }) {
  return (
    <section aria-label="Sources">
      <h2 className="text-lg font-semibold text-slate-900">Sources ({sources.length})</h2>
      <table className="w-full text-left text-sm">
        <thead className="text-slate-600">
          <tr>
            <th className="py-1 pr-3 font-normal">#</th>
            <th className="py-1 pr-3 font-normal">Repository</th>
            <th className="py-1 pr-3 font-normal">Path or chart</th>
            <th className="py-1 pr-3 font-normal">Follows</th>
            <th className="py-1 pr-3 font-normal">Approved</th>
            <th className="py-1 pr-3 font-normal">Applied</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-200">
          {sources.map((s, i) => (
            <tr key={i} data-testid="application-source">
              <td className="py-1 pr-3 text-slate-500">{i + 1}</td>
              <td className="py-1 pr-3 font-mono text-xs">{s.repository ?? s.url}</td>
              <td className="py-1 pr-3 font-mono text-xs">
                {s.refOnly ? <span className="text-slate-600">lends files only</span> : s.chart ? `chart ${s.chart}` : s.path}
                {s.refName && <span className="ml-2 rounded bg-slate-100 px-1 text-slate-700">ref: {s.refName}</span>}
              </td>
              <td className="py-1 pr-3" title={s.follows.ref}>
                {s.follows.text}
              </td>
              <td className="py-1 pr-3">
                <RevisionText value={s.approved} />
              </td>
              <td className="py-1 pr-3">
                <RevisionText value={s.applied} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
