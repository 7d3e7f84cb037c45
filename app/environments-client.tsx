"use client";
import { useQuery } from "@tanstack/react-query";
import { EmptyState } from "@/components/empty-state";
import { EnvironmentCard } from "@/components/environment-card";
import { StaleDataNotice } from "@/components/query-state";
import { useNow } from "@/components/time";
import { fetchJson, queryKeys } from "@/lib/dashboard/client";
import { useFallbackPoll } from "@/components/live/live-updates";
import type { EnvironmentListDto } from "@/lib/api/contract";

export function EnvironmentsClient({ initial }: { initial: EnvironmentListDto }) {
  const q = useQuery({
    queryKey: queryKeys.environments,
    queryFn: () => fetchJson<EnvironmentListDto>("/api/environments"),
    initialData: initial,
    refetchInterval: useFallbackPoll(),
  });
  const data = q.data;
  const now = useNow(data.now);
  const worst = data.environments.filter((e) => e.status !== "In sync" && e.status !== "Not collected yet").length;
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-baseline gap-x-4 gap-y-1">
        <h1 className="text-2xl font-semibold tracking-tight">Environments</h1>
        <p className="text-sm text-slate-600" aria-live="polite">
          {data.environments.length} in promotion order
          {worst > 0 ? ` · ${worst} need${worst === 1 ? "s" : ""} attention` : " · all in sync"}
        </p>
      </div>
      <StaleDataNotice error={q.error} updatedAt={q.dataUpdatedAt} />
      {data.environments.length === 0 ? (
        <EmptyState title="Waiting for the first collection">
          <p>
            {data.config.declared} environment{data.config.declared === 1 ? " is" : "s are"} declared in <code>{data.config.path}</code>, but none has been
            collected yet. The collector starts with Driftwatch and reports here within a minute; if nothing appears, check that it is running
            (<code>npm run collector</code>) and read its log.
          </p>
        </EmptyState>
      ) : (
        <ol className="grid gap-4 md:grid-cols-2 xl:grid-cols-3" aria-label="Environments in promotion order">
          {data.environments.map((env) => (
            <li key={env.name} className="flex">
              <div className="w-full">
                <EnvironmentCard env={env} now={now} />
              </div>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
