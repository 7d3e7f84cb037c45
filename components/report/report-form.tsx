import type { ReportWindow } from "@/lib/reports";
import { PrintButton } from "./print-button";

/** datetime-local wants "YYYY-MM-DDTHH:MM"; the report reads zone-less times as UTC. */
const local = (iso: string) => iso.slice(0, 16);

/** A plain GET form: the chosen window is the page's address, so a report can be linked and reprinted. */
export function ReportForm({ environments, environment, window }: { environments: string[]; environment: string | null; window: ReportWindow }) {
  const field = "rounded border border-slate-300 bg-white px-2 py-1 text-sm text-slate-900";
  return (
    <form method="get" action="/reports/incident" aria-label="Choose the report's environment and window" className="flex flex-wrap items-end gap-3 rounded-lg border border-slate-200 bg-white p-3 print:hidden">
      <label className="flex flex-col text-xs text-slate-600">
        Environment
        <select name="env" defaultValue={environment ?? ""} className={field}>
          {environments.map((e) => (
            <option key={e}>{e}</option>
          ))}
        </select>
      </label>
      <label className="flex flex-col text-xs text-slate-600">
        From (UTC)
        <input type="datetime-local" name="from" defaultValue={local(window.from)} className={field} />
      </label>
      <label className="flex flex-col text-xs text-slate-600">
        To (UTC)
        <input type="datetime-local" name="to" defaultValue={local(window.to)} className={field} />
      </label>
      <button type="submit" className="rounded border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-900 hover:bg-slate-50">
        Show report
      </button>
      <div className="ml-auto">
        <PrintButton />
      </div>
    </form>
  );
}
