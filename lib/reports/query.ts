// The report's query string: environment, from, to. Times without a zone are
// UTC (the page's form says so), so a link means the same window to everyone
// who opens it, whatever their browser's zone.
import { z } from "zod";
import type { ReportWindow } from "./incident";

const DAY = 86_400_000;
/** A paper report of more than a month is not an incident report; it also bounds the queries. */
export const MAX_WINDOW_MS = 31 * DAY;

const ZONED = /(Z|[+-]\d\d:?\d\d)$/i;
const moment = z
  .string()
  .trim()
  .max(64)
  .transform((s) => (s === "" ? undefined : ZONED.test(s) ? s : `${s}Z`))
  .refine((s) => s === undefined || !Number.isNaN(Date.parse(s)), { message: "expected a date and time such as 2026-03-10T14:00 (UTC)" })
  .optional();

export const incidentReportQuerySchema = z.object({
  env: z.string().trim().max(100).optional(),
  from: moment,
  to: moment,
});

export type IncidentReportQuery =
  | { ok: true; environment: string | null; window: ReportWindow }
  | { ok: false; problem: string; environment: string | null; window: ReportWindow };

/** The window asked for; by default the 24 hours before `now`. A bad window falls back to the default and says why. */
export function parseIncidentReportQuery(params: Record<string, string | string[] | undefined>, now: Date): IncidentReportQuery {
  const one = (k: string) => (typeof params[k] === "string" ? (params[k] as string) : undefined);
  const fallback: ReportWindow = { from: new Date(now.getTime() - DAY).toISOString(), to: now.toISOString() };
  const parsed = incidentReportQuerySchema.safeParse({ env: one("env"), from: one("from"), to: one("to") });
  if (!parsed.success) {
    const problem = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    return { ok: false, problem, environment: null, window: fallback };
  }
  const environment = parsed.data.env || null;
  const to = parsed.data.to ? new Date(parsed.data.to) : now;
  const from = parsed.data.from ? new Date(parsed.data.from) : new Date(to.getTime() - DAY);
  const window = { from: from.toISOString(), to: to.toISOString() };
  if (from.getTime() > to.getTime()) return { ok: false, problem: "from must not be after to", environment, window: fallback };
  if (to.getTime() - from.getTime() > MAX_WINDOW_MS) return { ok: false, problem: "the window may be at most 31 days long", environment, window: fallback };
  return { ok: true, environment, window };
}
