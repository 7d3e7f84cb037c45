// What app/ may use from the dashboard's read side. Server only: these touch
// the database. Client components import types from ./dto and helpers from
// ./object-key and ./format, which do not.
export { listEnvironments, getEnvironmentDetail, findEnvironment, environmentNames } from "./environments";
export { listDrift, driftQuerySchema, driftPageSql, type DriftQuery } from "./drift";
export { getObjectDetail } from "./objects";
export { lookupCommit, getLineage } from "./commits";
export { getTimeline, timelineQuerySchema, type TimelineQuery } from "./timeline";
export { compareEnvironments, compareQuerySchema, type CompareQuery } from "./compare";
export { getMetrics, metricsQuerySchema } from "./metrics";
export { getRun } from "./runs";
export * from "./dto";
