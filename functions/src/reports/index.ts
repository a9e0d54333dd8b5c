/**
 * The report services, for callers other than the routes (the operator dashboard): typed inputs
 * (the partition's scope, a range or a page), the routes' response objects (wire/reports) as results. Scope
 * checks are the caller's: the API routes declare theirs to the pipeline.
 */
export { subscribersReport } from './subscribersReport';
export { revenueReport } from './revenueReport';
export { eventsReport } from './eventsReport';
export { errorsReport } from './errorsReport';
export { errorGroupDetail } from './errorDetail';
export { checkRange, DEFAULT_WINDOW_MS, type Granularity, type ReportRange } from './range';
export { DEFAULT_PAGE_SIZE } from './cursor';
// The answers' types (SubscribersReport, ErrorsReport, …) and MAX_PAGE_SIZE are wire/reports'.
