import { appsRoute, createAppRoute, createKeysRoute, revokeKeyRoute, rotateKeyRoute } from './routes/apps';
import { auditEntryRoute } from './routes/audit';
import { conflictsRoute, identitySettingsRoute, resolveConflictRoute } from './routes/conflicts';
import { customerAuditRoute, customerEventsRoute, customerRoute, eraseRoute, grantRoute, listCustomersRoute, revokeRoute, searchCustomersRoute } from './routes/customers';
import { errorGroupsRoute, errorSampleRoute, releaseSourceMapsRoute } from './routes/errors';
import { overviewRoute } from './routes/overview';
import { railsRoute, setAppleRailRoute, setGoogleRailRoute, setStripeRailRoute } from './routes/rails';
import { localLoginRoute, sessionRoute, signInOptionsRoute, signOutRoute } from './routes/session';
import { createEndpointRoute, deleteEndpointRoute, deliveriesRoute, disableEndpointRoute, enableEndpointRoute, replayRoute, rotateSecretRoute, sendTestEventRoute, updateEndpointRoute, webhookEndpointsRoute } from './routes/webhooks';

/** The `dashboardApi` group: the operator dashboard's API (README.md). */
export const dashboardRoutes = [
  localLoginRoute,
  sessionRoute,
  signInOptionsRoute,
  signOutRoute,
  overviewRoute,
  appsRoute,
  createAppRoute,
  createKeysRoute,
  rotateKeyRoute,
  revokeKeyRoute,
  searchCustomersRoute,
  listCustomersRoute,
  customerRoute,
  customerAuditRoute,
  customerEventsRoute,
  grantRoute,
  revokeRoute,
  eraseRoute,
  conflictsRoute,
  identitySettingsRoute,
  resolveConflictRoute,
  railsRoute,
  setStripeRailRoute,
  setAppleRailRoute,
  setGoogleRailRoute,
  auditEntryRoute,
  errorGroupsRoute,
  errorSampleRoute,
  releaseSourceMapsRoute,
  webhookEndpointsRoute,
  createEndpointRoute,
  updateEndpointRoute,
  deleteEndpointRoute,
  disableEndpointRoute,
  enableEndpointRoute,
  rotateSecretRoute,
  deliveriesRoute,
  sendTestEventRoute,
  replayRoute,
];
