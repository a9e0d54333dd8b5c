/**
 * The endpoint groups by name and the function each is deployed as. Kept apart from the
 * routes so that index.ts can declare every function without loading any group's code.
 */
export const GROUP_FUNCTIONS = {
  platform: 'platformApi',
  identity: 'identityApi',
  events: 'eventsApi',
  purchases: 'purchasesApi',
  server: 'serverApi',
  sourcemaps: 'sourcemapsApi',
  webhooks: 'webhooksApi',
  dashboard: 'dashboardApi',
  reports: 'reportsApi',
} as const;

export type GroupName = keyof typeof GROUP_FUNCTIONS;
