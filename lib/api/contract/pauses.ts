// Pauses of reconciliation: who, why, since, until.
import { z } from "zod";
import { count, isoTime, named, object } from "./schema";

export const PauseRecordDto = named(
  "PauseRecord",
  object({
    id: z.string(),
    environment: z.string(),
    application: z.string().nullable().describe("The application paused (its controller object); null: the whole environment"),
    controllerRef: z.string().nullable(),
    origin: z.enum(["dashboard", "detected"]),
    active: z.boolean(),
    unattributed: z.boolean().describe("Detected and nobody has taken ownership yet"),
    createdBy: z.string().nullable(),
    owner: z.string().nullable(),
    reason: z.string().nullable(),
    incidentUrl: z.string().nullable(),
    startedAt: isoTime,
    expiresAt: isoTime.nullable(),
    expired: z.boolean(),
    executed: z.boolean().describe("Driftwatch performed it on the controller (write credential configured)"),
    clusterAgrees: z.boolean().nullable().describe("Whether the cluster shows the controller suspended; null when unknown"),
    detectedManager: z.string().nullable(),
    detectedAt: isoTime.nullable(),
    endedAt: isoTime.nullable(),
    endedBy: z.string().nullable(),
    endReason: z.string().nullable(),
  }),
  "A pause: who, why, since, until, origin, whether executed on the controller",
);
export type PauseRecordDto = z.infer<typeof PauseRecordDto>;

export const PauseList = named("PauseList", object({ pauses: z.array(PauseRecordDto) }));
export const PauseAnswer = named("PauseAnswer", object({ pause: PauseRecordDto }));
export const PauseResumed = named(
  "PauseResumed",
  object({ pause: object({ ...PauseRecordDto.shape, resumedOnController: z.boolean().describe("The controller's previous policy was restored by Driftwatch") }) }),
);

export const PausePolicyDto = named(
  "PausePolicy",
  object({
    environment: z.string(),
    application: z.string().nullable().describe("The application asked about, or null for the whole environment"),
    confirmPause: z.boolean().describe("The environment's name must be typed to confirm"),
    maxPauseMs: count,
    autoResume: z.boolean(),
    controllerRef: z.string().nullable(),
    controllerRefs: z
      .array(z.string())
      .describe("A whole-environment pause of an environment without a controller object of its own: each application's object it suspends (all or nothing) and resume puts back"),
    executes: z.boolean().describe("Driftwatch performs the pause on the controller"),
  }),
);
export type PausePolicyDto = z.infer<typeof PausePolicyDto>;

export const pauseListQuery = z.object({
  environment: z.string().max(100).optional().describe("One environment"),
  active: z.enum(["true", "false"]).optional().describe("Only active (true) or ended (false)"),
  limit: z.coerce.number().int().min(1).max(1000).optional().describe("At most"),
});

export const pausePolicyQuery = z.object({
  environment: z.string().min(1).max(100).describe("Environment name"),
  application: z.string().min(1).max(253).optional().describe("One application of it (its controller object)"),
});
