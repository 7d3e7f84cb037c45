// A Flux HelmRelease environment's release: the chart and version Helm
// installed against what Git asks for, where Git's values differ from the
// released ones (Git's side only, masked where it could be a secret: the
// released values are never sent to the browser), and the release history.
import type { HelmReleaseDto } from "@/lib/api/contract";
import { Pill } from "@/components/status-badge";
import { Time } from "@/components/time";

const CHANGE_LABEL = { added: "only in Git", removed: "only in the release", changed: "differs" } as const;

export function HelmReleasePanel({ release }: { release: HelmReleaseDto }) {
  const { released, declared, verdict, valuesDiff, history } = release;
  return (
    <section aria-labelledby="helm-release-heading" className="space-y-3 rounded border border-slate-200 bg-white p-4">
      <h2 id="helm-release-heading" className="text-base font-semibold">
        Helm release <span className="font-mono text-sm font-normal">{release.storageNamespace}/{release.releaseName}</span>
      </h2>
      <dl className="grid gap-2 text-sm sm:grid-cols-2">
        <div>
          <dt className="text-slate-500">Released (Helm&apos;s current revision; its manifest is the desired state)</dt>
          <dd>
            {released ? (
              <>
                <strong>{released.chart.name}</strong> {released.chart.version}
                {released.chart.appVersion ? ` (app ${released.chart.appVersion})` : ""} · revision {released.revision} · {released.status}
              </>
            ) : (
              "nothing installed yet"
            )}
          </dd>
        </div>
        <div>
          <dt className="text-slate-500">Git asks for</dt>
          <dd>
            {declared ? (
              <>
                <strong>{declared.chart ?? declared.chartRef ?? "?"}</strong> {declared.version === "*" ? "(newest)" : declared.version}
              </>
            ) : (
              "no HelmRelease found in Git"
            )}
          </dd>
        </div>
      </dl>
      {verdict && (
        <p className="text-sm">
          {verdict.state === "released" ? (
            <Pill tone="green">released</Pill>
          ) : verdict.state === "pending" ? (
            <Pill tone="amber">changed in Git, not released yet</Pill>
          ) : (
            <Pill tone="slate">cannot tell</Pill>
          )}{" "}
          {verdict.changes.join(", ")}
          {verdict.reason && <span className="block text-slate-600 [overflow-wrap:anywhere]">helm-controller: {verdict.reason}</span>}
        </p>
      )}
      {valuesDiff && (
        <div>
          <h3 className="text-sm font-medium">Values, Git against the release</h3>
          {valuesDiff.total === 0 ? (
            <p className="text-sm text-slate-600">Git&apos;s values are the released ones.</p>
          ) : (
            <table className="mt-1 min-w-full text-left text-sm" aria-label="Values that differ between Git and the release">
              <thead className="text-xs text-slate-500">
                <tr>
                  <th scope="col" className="py-1 pr-3 font-medium">Path</th>
                  <th scope="col" className="py-1 pr-3 font-medium">Difference</th>
                  <th scope="col" className="py-1 font-medium">In Git</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {valuesDiff.entries.map((e) => (
                  <tr key={e.path} className="align-top">
                    <td className="py-1 pr-3 font-mono text-xs [overflow-wrap:anywhere]">{e.path}</td>
                    <td className="py-1 pr-3">{CHANGE_LABEL[e.change]}</td>
                    <td className="py-1 font-mono text-xs [overflow-wrap:anywhere]">{e.git ?? "—"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {valuesDiff.total > valuesDiff.entries.length && <p className="text-xs text-slate-500">and {valuesDiff.total - valuesDiff.entries.length} more</p>}
          <p className="text-xs text-slate-500">Released values are never stored: the release side is compared by keyed hash only.</p>
        </div>
      )}
      {history.length > 0 && (
        <div>
          <h3 className="text-sm font-medium">Release history</h3>
          <ol className="text-sm" aria-label="Release history, newest first">
            {history.map((h) => (
              <li key={h.revision}>
                revision {h.revision} · {h.status}
                {h.chartVersion ? ` · chart ${h.chartVersion}` : ""}
                {h.deployedAt && (
                  <>
                    {" · "}
                    <Time iso={h.deployedAt} />
                  </>
                )}
              </li>
            ))}
          </ol>
        </div>
      )}
    </section>
  );
}
