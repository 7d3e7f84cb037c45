// Rollout health of an environment: counts over every workload, and the
// workloads listed with their replicas and images — all of them in a small
// environment, only those still rolling out in a large one (summariseRollout).
import type { EnvironmentDetailDto } from "@/lib/api/contract";
import { Pill } from "@/components/status-badge";

type Props = Pick<EnvironmentDetailDto, "rollout" | "rolloutCounts">;

// One locale for the server's render and the browser's, so hydration agrees.
const n = (v: number) => v.toLocaleString("en-US");

export function rolloutHeadline({ rollout, rolloutCounts: { total, rollingOut } }: Props): string {
  const workloads = `${n(total)} ${total === 1 ? "workload" : "workloads"}`;
  const counts = rollingOut === 0 ? `${workloads}, all rolled out` : `${workloads}: ${n(total - rollingOut)} rolled out, ${n(rollingOut)} rolling out`;
  // Everything listed, or nothing rolling out to list: the counts say it all.
  if (rollout.length === total || rollingOut === 0) return counts;
  return rollout.length < rollingOut ? `${counts}; the first ${rollout.length} listed` : `${counts}; those rolling out listed`;
}

export function RolloutHealth(props: Props) {
  const { rollout } = props;
  return (
    <div>
      <p className="mb-2 text-sm text-slate-600" data-testid="rollout-headline">
        {rolloutHeadline(props)}
      </p>
      {rollout.length > 0 && (
        <div className="overflow-x-auto">
          <table className="min-w-full text-left text-sm">
            <thead className="text-xs text-slate-500">
              <tr>
                <th scope="col" className="py-1 pr-3 font-medium">Workload</th>
                <th scope="col" className="py-1 pr-3 font-medium">Ready / updated / desired</th>
                <th scope="col" className="py-1 pr-3 font-medium">Images</th>
                <th scope="col" className="py-1 font-medium">State</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {rollout.map((r) => (
                <tr key={r.key} className="align-top">
                  <td className="py-1 pr-3">
                    {r.kind} {r.namespace}/{r.name}
                  </td>
                  <td className="py-1 pr-3 tabular-nums">
                    {r.readyReplicas ?? 0} / {r.updatedReplicas ?? 0} / {r.replicas ?? 0}
                  </td>
                  <td className="py-1 pr-3 font-mono text-xs">{r.images.join(", ")}</td>
                  <td className="py-1">{r.rolledOut ? <Pill tone="green">rolled out</Pill> : <Pill tone="amber">{r.message ?? "rolling out"}</Pill>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
