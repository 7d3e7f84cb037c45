export { appendAudit, appendAuditBatch, verifyAuditChain, hashEvent, GENESIS_HASH, SYSTEM } from "./chain";
export type { Actor, AuditInput, AuditContent, ChainVerification } from "./chain";
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
