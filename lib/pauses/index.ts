export {
  createPause,
  pausePolicy,
  resumePause,
  takeOwnership,
  listPauses,
  getPause,
  toPauseDto,
  environmentConfigOf,
  createPauseSchema,
  takeOwnershipSchema,
  resumePauseSchema,
} from "./pauses";
export { reconcileApplicationPauses, reconcileDetectedPauses, resumeExpiredPauses } from "./observed";
export type { PauseDto, PauseDeps, CreatePauseInput, TakeOwnershipInput } from "./pauses";
export {
  controllerRefOf,
  controllerPath,
  pausePatch,
  resumePatch,
  ANNOTATION_PAUSED_BY,
  ANNOTATION_REASON,
  ANNOTATION_UNTIL,
  ANNOTATION_PAUSE_ID,
  FIELD_MANAGER,
} from "./controller";
export type { ClientFactory, KubeWriter } from "./controller";
export { resolveExpiry, reasonSchema, incidentUrlSchema, expiryFields } from "./input";
