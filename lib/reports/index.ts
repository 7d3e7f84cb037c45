// What app/ may use for reports. loadIncidentReport touches the database (server only).
export { assembleIncidentReport, median } from "./incident";
export type { IncidentReport, IncidentReportInput, ReportDrift, ReportPause, ReportAlert, ReportLeadTime, ReportWindow } from "./incident";
export { parseIncidentReportQuery, MAX_WINDOW_MS } from "./query";
export { loadIncidentReport } from "./load-incident";
