// An environment's applications added up: the counts per state and the few
// that need attention first. Shared by the environment cards and the
// applications list (its own file, as environments.ts cannot import
// applications.ts: that imports drift.ts, which imports environments.ts).
import { z } from "zod";
import { APPLICATION_STATUSES, type AttentionStatus } from "@/lib/applications/rollup";
import { count, named, object } from "./schema";

export const ApplicationRollupDto = named(
  "ApplicationRollup",
  object({ total: count, inSync: count, drifted: count, stale: count, paused: count, failing: count }),
  "How many of the environment's applications (removed ones left out) are in each state; one application can be in several",
);
export type ApplicationRollupDto = z.infer<typeof ApplicationRollupDto>;

const ATTENTION_STATUSES = APPLICATION_STATUSES.filter((s): s is AttentionStatus => s !== "In sync" && s !== "Removed") as [AttentionStatus, ...AttentionStatus[]];

export const WorstApplicationDto = named(
  "WorstApplication",
  object({
    name: z.string(),
    status: z.enum(ATTENTION_STATUSES),
    driftCount: count,
    href: z.string().describe("The application's page"),
  }),
  "An application that is not in sync, as the environment card lists it",
);
export type WorstApplicationDto = z.infer<typeof WorstApplicationDto>;
