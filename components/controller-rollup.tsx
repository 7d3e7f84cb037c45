// The Controller panel of an environment of many applications: no one
// controller object is the environment's, so its applications' objects are
// counted by state and the ones not ready are listed, failing first, each
// with why and the applications it holds up.
import Link from "next/link";
import type { ControllerRollupDto } from "@/lib/api/contract";
import { plural } from "@/lib/dashboard/format";
import { Pill } from "./status-badge";
import { ConditionDetail } from "./controller-condition";

type Row = ControllerRollupDto["attention"][number];

const STATE: Record<Row["state"], { label: string; tone: "red" | "amber" | "sky" | "slate" }> = {
  failing: { label: "failing", tone: "red" },
  "not-found": { label: "not found in the cluster", tone: "red" },
  "not-ready": { label: "not ready", tone: "amber" },
  suspended: { label: "suspended", tone: "sky" },
};

export function ControllerRollup({ rollup, now }: { rollup: ControllerRollupDto; now: number }) {
  if (rollup.objects === 0) return <p className="text-sm text-slate-600">No GitOps controller runs its applications (yet): each one&apos;s controller object shows here once collected.</p>;
  const parts = [
    [rollup.failing, "failing", "red"],
    [rollup.notReady, "not ready", "amber"],
    [rollup.suspended, "suspended", "sky"],
    [rollup.ready, "ready", "green"],
  ] as const;
  return (
    <div className="space-y-2 text-sm">
      <p className="flex flex-wrap items-center gap-1.5">
        <span>{plural(rollup.objects, "controller object")}:</span>
        {parts
          .filter(([n]) => n > 0)
          .map(([n, words, tone]) => (
            <Pill key={words} tone={tone}>
              {n} {words}
            </Pill>
          ))}
      </p>
      {rollup.attention.length === 0 ? (
        <p className="text-slate-600">Every one reports ready.</p>
      ) : (
        <ul className="divide-y divide-slate-100 text-xs" aria-label="Controller objects not ready">
          {rollup.attention.map((o) => (
            <ControllerObjectItem key={o.object} row={o} now={now} />
          ))}
        </ul>
      )}
    </div>
  );
}

function ControllerObjectItem({ row, now }: { row: Row; now: number }) {
  const c = row.condition;
  const state = STATE[row.state];
  const more = row.applicationCount - row.applications.length;
  return (
    <li className={`py-1.5 ${row.state === "failing" ? "text-red-800" : ""}`}>
      <span className="font-mono [overflow-wrap:anywhere]">{row.object}</span> <Pill tone={state.tone}>{row.suspendedBy ? `${state.label} by ${row.suspendedBy.manager}` : state.label}</Pill>
      {c && (
        <>
          {" "}
          <ConditionDetail condition={c} now={now} />
        </>
      )}
      <span className="block text-slate-700">
        {row.state === "failing" ? `Holds up ${plural(row.applicationCount, "application")}: ` : row.applicationCount === 1 ? "Application: " : "Applications: "}
        {row.applications.map((a, i) => (
          <span key={a.name}>
            {i > 0 && ", "}
            <Link href={a.href} className="text-blue-700 hover:underline">
              {a.name}
            </Link>
          </span>
        ))}
        {more > 0 && ` and ${more} more`}
      </span>
    </li>
  );
}
