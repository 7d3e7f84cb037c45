// What the rest of the app may use from lib/metrics.
export { buildMetrics, metricsRenderer, METRICS_CONTENT_TYPE, DURATION_BUCKETS } from "./prometheus";
export { metricsAccessProblem } from "./access";
