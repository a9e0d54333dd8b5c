import type { GroupName } from '../groupNames';

/**
 * What the document says about each route in words (the schemas say the rest): a summary per
 * route, keyed `METHOD path`, and the tag text of each endpoint group. A test holds every key to
 * a mounted route and every mounted route to a key, so a new route cannot go undescribed.
 */
export interface RouteNote {
  summary: string;
  description?: string;
  /** A success status other than 200. */
  status?: number;
  /** The success response's description. */
  response?: string;
  /** The request body's description, for routes that read their bytes unparsed (rail notifications). */
  body?: string;
  /** Request headers the route reads (components/parameters). */
  headers?: readonly RequestHeader[];
  /** Response headers the route may set on success (components/headers). */
  responseHeaders?: readonly string[];
}

export type RequestHeader = 'IdempotencyKey' | 'ServiceSdkVersion' | 'StripeSignature';

export const GROUP_TAGS: Record<GroupName, string> = {
  platform: 'Health, SDK configuration and versions, this document (`platformApi`).',
  identity: 'Identify, resolve, forget and the client entitlement read (`identityApi`).',
  events: 'Telemetry and error event batches (`eventsApi`).',
  purchases: 'Purchase forwarding from the apps (`purchasesApi`).',
  server: 'Secret-key operations: grants, revokes, audit reads, bulk alias and migration (`serverApi`).',
  sourcemaps: 'Source-map uploads for stack-trace resolution (`sourcemapsApi`).',
  webhooks: 'Inbound rail notifications: Stripe, App Store Server Notifications V2, Google Play RTDN (`webhooksApi`). Each verifies itself; no API key.',
  dashboard: 'The operator dashboard’s API (`dashboardApi`): a signed-in operator instead of an API key; answers are `{ data }`.',
  reports: 'Reports for secret keys with a reporting scope (`reportsApi`).',
};

const P = '/v1/dashboard-api/projects/:projectId/:env';

export const ROUTE_NOTES: Record<string, RouteNote> = {
  // platform
  'GET /v1/healthz': { summary: 'Health check' },
  'GET /v1/sdk/versions': { summary: 'Latest and minimum supported SDK versions per surface' },
  'GET /v1/config': { summary: 'The calling app’s SDK configuration (publishable keys only)' },
  'GET /v1/sdk/heartbeat': { summary: 'SDK boot heartbeat (liveness; first-origin learning for new web apps)', headers: ['ServiceSdkVersion'] },
  'GET /v1/openapi.json': { summary: 'This OpenAPI document' },
  // identity
  'POST /v1/identify': { summary: 'Link an anonymous device id to a developer user id' },
  'POST /v1/identity/forget': { summary: 'Request erasure of a customer (right to be forgotten)' },
  'GET /v1/entitlements': { summary: 'Active entitlements of one customer, by exactly one hint' },
  'POST /v1/resolve': { summary: 'The visitor’s trust tier, profile and recommended action' },
  // events
  'POST /v1/events': { summary: 'Ingest a batch of telemetry and error events', status: 202, response: 'Accepted (`received` counts the events that landed).', headers: ['ServiceSdkVersion'] },
  // purchases
  'POST /v1/purchases/sync': { summary: 'Forward an App Store signed transaction', headers: ['IdempotencyKey'], responseHeaders: ['Idempotent-Replayed'] },
  // server
  'GET /v1/server/customers/:customerId/entitlements': { summary: 'Any customer’s entitlements' },
  'POST /v1/server/customers/:customerId/grant': { summary: 'Grant an entitlement manually (audited)' },
  'POST /v1/server/customers/:customerId/revoke': { summary: 'Revoke a manually granted entitlement (audited)' },
  'GET /v1/server/audit/:eventId': { summary: 'Read one audit entry' },
  'POST /v1/server/customers/alias': { summary: 'Identify many users in one request (bulk alias)' },
  'POST /v1/migration/users': { summary: 'Migrate existing users to rail-keyed customers (up to 1,000 rows)' },
  // sourcemaps
  'POST /v1/releases/sourcemaps': { summary: 'Upload a release’s source maps (up to 100 files)' },
  // webhooks (inbound rails)
  'POST /v1/webhooks/stripe/:projectId': { summary: 'Stripe event', body: 'A Stripe event, verified with `Stripe-Signature` against the project’s webhook signing secret.', headers: ['StripeSignature'] },
  'POST /v1/webhooks/apple/:projectId': { summary: 'App Store Server Notification V2', body: '`{ signedPayload }`: a JWS verified against the Apple root certificates.' },
  'POST /v1/webhooks/google/:projectId': { summary: 'Google Play real-time developer notification', body: 'A Pub/Sub push message (base64 `message.data`), with the subscription’s OIDC token as `Authorization: Bearer`.' },
  // reports
  'GET /v1/reports/subscribers': { summary: 'Subscriber counts over a range' },
  'GET /v1/reports/revenue': { summary: 'Revenue over a range' },
  'GET /v1/reports/events': { summary: 'Event counts over a range' },
  'GET /v1/reports/errors': { summary: 'Error groups' },
  'GET /v1/reports/errors/:fingerprint': { summary: 'One error group with its latest sample, symbolicated' },
  'GET /v1/reports/customers': { summary: 'Customers, row level (needs `reporting:identity`)' },
  // dashboard: session
  'POST /v1/dashboard-api/session/local': { summary: 'Exchange the local stack’s sign-in link for a session token' },
  'GET /v1/dashboard-api/session': { summary: 'The signed-in operator and the projects they may open' },
  'GET /v1/dashboard-api/session/options': { summary: 'Where the dashboard signs in' },
  'POST /v1/dashboard-api/session/sign-out': { summary: 'Sign out (the token is refused from then on)' },
  // dashboard: in a project and environment
  [`GET ${P}/overview`]: { summary: 'Overview counts and daily series' },
  [`GET ${P}/apps`]: { summary: 'Apps with this environment’s keys and their activity' },
  [`POST ${P}/apps`]: { summary: 'Create an app' },
  [`POST ${P}/apps/:appId/keys`]: { summary: 'Create an app’s keys for this environment (plaintexts shown once)' },
  [`POST ${P}/keys/:keyId/rotate`]: { summary: 'Rotate a key, with a grace period for the old one' },
  [`POST ${P}/keys/:keyId/revoke`]: { summary: 'Revoke a key at once' },
  [`GET ${P}/customers`]: { summary: 'Find customers by exact identifier' },
  [`GET ${P}/customer-list`]: { summary: 'List customers with filters and paging' },
  [`GET ${P}/customers/:customerId`]: { summary: 'One customer’s whole picture' },
  [`GET ${P}/customers/:customerId/audit`]: { summary: 'A customer’s audit trail, newest first, paged' },
  [`GET ${P}/customers/:customerId/events`]: { summary: 'A customer’s recent events, newest first, paged' },
  [`POST ${P}/customers/:customerId/grant`]: { summary: 'Grant an entitlement manually' },
  [`POST ${P}/customers/:customerId/revoke`]: { summary: 'Revoke a manual entitlement' },
  [`POST ${P}/customers/:customerId/erase`]: { summary: 'Erase a customer' },
  [`GET ${P}/conflicts`]: { summary: 'The identity conflict review queue' },
  [`GET ${P}/identity-settings`]: { summary: 'The project’s identity settings' },
  [`POST ${P}/conflicts/:conflictId/resolve`]: { summary: 'Merge or keep apart a conflict’s customers' },
  [`GET ${P}/rails`]: { summary: 'Rail settings (references and fingerprints, never secrets)' },
  [`POST ${P}/rails/stripe`]: { summary: 'Set the Stripe rail' },
  [`POST ${P}/rails/apple`]: { summary: 'Set the App Store rail' },
  [`POST ${P}/rails/google`]: { summary: 'Set the Google Play rail' },
  [`GET ${P}/audit/:eventId`]: { summary: 'One audit entry' },
  [`GET ${P}/errors`]: { summary: 'Error groups' },
  [`GET ${P}/errors/:fingerprint`]: { summary: 'An error group’s latest sample, symbolicated' },
  [`GET ${P}/releases/:release/sourcemaps`]: { summary: 'A release’s source maps' },
  [`GET ${P}/webhooks`]: { summary: 'Outbound webhook endpoints' },
  [`POST ${P}/webhooks`]: { summary: 'Create a webhook endpoint (its signing secret shown once)' },
  [`POST ${P}/webhooks/:endpointId/update`]: { summary: 'Edit a webhook endpoint’s URL and event types' },
  [`DELETE ${P}/webhooks/:endpointId`]: { summary: 'Delete a webhook endpoint' },
  [`POST ${P}/webhooks/:endpointId/disable`]: { summary: 'Disable a webhook endpoint' },
  [`POST ${P}/webhooks/:endpointId/enable`]: { summary: 'Enable a webhook endpoint' },
  [`POST ${P}/webhooks/:endpointId/rotate-secret`]: { summary: 'Rotate a webhook endpoint’s signing secret' },
  [`GET ${P}/webhooks/:endpointId/deliveries`]: { summary: 'A webhook endpoint’s delivery attempts' },
  [`POST ${P}/webhooks/:endpointId/test`]: { summary: 'Send a test event to a webhook endpoint' },
  [`POST ${P}/webhook-events/:eventId/replay`]: { summary: 'Replay a webhook event' },
};
