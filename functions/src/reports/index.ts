/**
 * The report services, for callers other than the routes (the operator dashboard): typed inputs
 * (the partition's scope, a range or a page), the routes' response objects as results. Scope
 * checks are the caller's: the API routes declare theirs to the pipeline.
 */
export { subscribersReport, type SubscribersReport } from './subscribersReport';
export { revenueReport, type RevenueReport } from './revenueReport';
export { eventsReport, type EventsReport } from './eventsReport';
export { errorsReport, type ErrorsReport } from './errorsReport';
export { errorGroupDetail } from './errorDetail';
export { checkRange, DEFAULT_WINDOW_MS, type Granularity, type ReportRange } from './range';
export { DEFAULT_PAGE_SIZE } from './cursor';
