// One condition a controller object reports, as the Controller panels read it:
// "Ready=False · AuthenticationFailed · since 2h ago", its message below.
import type { ControllerCondition } from "@/lib/api/contract";
import { Ago } from "./time";

export function ConditionDetail({ condition: c, now }: { condition: ControllerCondition; now: number }) {
  return (
    <>
      <strong>
        {c.type}={c.status}
      </strong>
      {c.reason && <> · {c.reason}</>}
      {c.lastTransitionTime && (
        <>
          {" "}
          · since <Ago iso={c.lastTransitionTime} now={now} />
        </>
      )}
      {c.message && <span className="block text-slate-600 [overflow-wrap:anywhere]">{c.message}</span>}
    </>
  );
}
