// What app/ may use from the dashboard's read side. Server only: these touch
// the database. The shapes they answer with, and the query schemas, are the
// API contract's (lib/api/contract); client components import those types,
// and helpers from ./object-key and ./format, which touch nothing.
export { listEnvironments, getEnvironmentDetail, findEnvironment, environmentNames } from "./environments";
export { listDrift, driftPageSql } from "./drift";
export { getObjectDetail } from "./objects";
export { lookupCommit, getLineage } from "./commits";
export { getTimeline } from "./timeline";
export { compareEnvironments } from "./compare";
export { getMetrics } from "./metrics";
export { getRun } from "./runs";
