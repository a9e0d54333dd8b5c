/**
 * The report services, for callers other than the routes (the operator dashboard): typed inputs
 * (the partition's scope, a range or a page), the routes' response objects as results. Scope
 * checks are the caller's: the API routes declare theirs to the pipeline.
 */
export { subscribersReport, type SubscribersReport, type SubscriberCount } from './subscribersReport';
export { revenueReport, type RevenueReport, type RevenuePeriod } from './revenueReport';
export { eventsReport, type EventsReport } from './eventsReport';
export { errorsReport, type ErrorsReport, type ErrorsPageInput, type ErrorGroupSummary } from './errorsReport';
export { errorGroupDetail, type ErrorGroupDetail } from './errorDetail';
export { customersReport, type CustomersReport, type CustomersPageInput, type CustomerRow } from './customersReport';
export { checkRange, DEFAULT_WINDOW_MS, MAX_PERIODS, type Granularity, type ReportRange } from './range';
export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './cursor';
