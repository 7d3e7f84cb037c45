export { appendAudit, appendAuditBatch, ensureAuditChainKeyed, verifyAuditChain, auditKey, hashEvent, legacyHashEvent, GENESIS_HASH, SYSTEM } from "./chain";
export type { Actor, AuditInput, AuditContent, ChainVerification, ChainHead, VerifyOptions } from "./chain";
export { canonicalJson } from "./canonical";
export {
  auditFilterSchema,
  listAuditEvents,
  iterateAuditEvents,
  toAuditDto,
  csvHeader,
  csvLine,
  jsonLine,
  CSV_COLUMNS,
} from "./query";
export type { AuditFilter, AuditEventDto } from "./query";
export { CHECKPOINT_FILE, checkpointAuditChain, readCheckpoint, writeCheckpoint, verifyAuditLog, scheduleAuditCheckpoints } from "./checkpoint";
export type { CheckpointOutcome, CheckpointRead, CheckpointSchedule, SignedCheckpoint } from "./checkpoint";
