export {
  TIMELINE_TYPES,
  TIMELINE_TYPE_LABELS,
  mergeTimeline,
  fromAuditEvent,
  fromCommit,
  typeOfAction,
  type TimelineEvent,
  type TimelineType,
  type TimelineFilter,
  type AuditEventInput,
  type CommitInput,
} from "./merge";
export { toCsv, toJson, toMarkdown, utcStamp, type ExportContext } from "./export";
