"use client";
import Link from "next/link";
import { Breadcrumb } from "@/components/breadcrumb";
import { useQuery } from "@tanstack/react-query";
import { badgePlace, EnvBadge } from "@/components/env-badge";
import { PromotionChain } from "@/components/promotion-chain";
import { StaleDataNotice } from "@/components/query-state";
import { RevisionLine, ShaLink } from "@/components/revision";
import { ShaLookup } from "@/components/sha-lookup";
import { Ago, Time, useNow } from "@/components/time";
import { fetchJson, queryKeys } from "@/lib/dashboard/client";
import { useFallbackPoll } from "@/components/live/live-updates";
import type { CommitLookupDto } from "@/lib/api/contract";
import { formatDuration } from "@/lib/dashboard/format";

export function CommitClient({ sha, initial, now: serverNow }: { sha: string; initial: CommitLookupDto; now: string }) {
  const q = useQuery({ queryKey: queryKeys.commit(sha), queryFn: () => fetchJson<CommitLookupDto>(`/api/commits/${sha}`), initialData: initial, refetchInterval: useFallbackPoll() });
  const now = useNow(serverNow);
  const data = q.data;
  if (data.match === "ambiguous") {
    return (
      <div className="space-y-4">
        <h1 className="text-2xl font-semibold tracking-tight">
          <span className="font-mono">{sha}</span> matches {data.candidates.length} commits
        </h1>
        <p className="text-sm text-slate-600">Pick one, or type more digits of the sha.</p>
        <ul className="divide-y divide-slate-100 rounded-lg border border-slate-200 bg-white">
          {data.candidates.map((c) => (
            <li key={c.sha} className="px-4 py-2 text-sm">
              <RevisionLine rev={c}>{c.committedAt && <Ago iso={c.committedAt} now={now} className="text-xs text-slate-500" />}</RevisionLine>
            </li>
          ))}
        </ul>
        <ShaLookup initial={sha} />
      </div>
    );
  }
  const c = data.commit;
  const r = c.revision;
  const [subject, ...body] = r.fullMessage.split("\n");
  return (
    <div className="space-y-5">
      <Breadcrumb trail={[{ href: "/lineage", label: "Lineage" }]} current={r.shortSha} />
      <header className="space-y-1">
        <h1 className="text-2xl font-semibold tracking-tight">{subject}</h1>
        <p className="text-sm text-slate-600">
          <span className="font-mono">{r.sha}</span> in {c.repository} · {r.authorName} &lt;{c.revision.authorEmail}&gt; · <Time iso={r.committedAt} /> (<Ago iso={r.committedAt} now={now} />)
        </p>
        {body.join("\n").trim() && <pre className="whitespace-pre-wrap rounded bg-slate-100 p-3 text-sm">{body.join("\n").trim()}</pre>}
        <p className="text-xs text-slate-500">
          Parents: {r.parents.length === 0 ? "none (first commit)" : r.parents.map((p) => <ShaLink key={p} sha={p} className="mr-2" />)} · Changes: <span className="font-mono">{r.changedPaths.join(", ") || "—"}</span>
        </p>
      </header>
      <StaleDataNotice error={q.error} updatedAt={q.dataUpdatedAt} />

      <section aria-labelledby="where-heading" className="space-y-3">
        <h2 id="where-heading" className="text-lg font-semibold">
          Where is it live?
        </h2>
        <ul className="grid grid-cols-1 gap-3 md:grid-cols-2 xl:grid-cols-3">
          {c.environments.map((b) => (
            <li key={badgePlace(b)} className="rounded-lg border border-slate-200 bg-white p-4 text-sm">
              <h3 className="mb-1 font-semibold">
                <Link href={`/environments/${encodeURIComponent(b.environment)}`} className="hover:underline">
                  {b.environment}
                </Link>
                {b.application && (
                  <>
                    {" · "}
                    <Link href={`/environments/${encodeURIComponent(b.environment)}/applications/${encodeURIComponent(b.application)}`} className="hover:underline">
                      {b.application}
                    </Link>
                  </>
                )}
              </h3>
              <EnvBadge b={b} now={now} />
              {b.state === "live" && (
                <p className="mt-2 text-slate-700">
                  Live since <Time iso={b.since} /> (<Ago iso={b.since} now={now} />), through applied revision {b.through && <ShaLink sha={b.through.sha} />}
                  {b.viaDescendant ? ": a later commit that contains this one." : ": this commit itself."}
                </p>
              )}
              {b.state === "pending" && (
                <p className="mt-2 text-slate-700">
                  Approved but not applied. {b.environment} runs {b.through ? <ShaLink sha={b.through.sha} /> : "an unknown revision"}.{" "}
                  {b.reasonSince && (
                    <>
                      Blocked since <Time iso={b.reasonSince} />.
                    </>
                  )}
                </p>
              )}
              {b.state === "not-approved" && <p className="mt-2 text-slate-700">{b.reason}.</p>}
              {b.firstLiveAt && b.state !== "live" && (
                <p className="mt-1 text-xs text-slate-500">
                  Was live from <Time iso={b.firstLiveAt} />, then rolled back.
                </p>
              )}
            </li>
          ))}
        </ul>
      </section>

      <section aria-labelledby="chain-heading" className="space-y-2 rounded-lg border border-slate-200 bg-white p-4">
        <h2 id="chain-heading" className="text-lg font-semibold">
          Promotion chain
        </h2>
        <PromotionChain shortSha={r.shortSha} badges={c.environments} hops={c.hops} />
        <ul className="text-sm text-slate-600">
          {c.hops.map((h) => (
            <li key={`${h.from}-${h.to}`}>
              {h.from ?? "commit"} → {h.to}: {h.durationMs === null ? "not reached yet" : formatDuration(h.durationMs)}
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
