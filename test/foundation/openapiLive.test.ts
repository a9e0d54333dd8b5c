/**
 * Guarantees that the OpenAPI document describes what the service answers: every mounted route
 * is called at least once, in a small end-to-end tour (a project with keys, a customer, a grant,
 * a webhook endpoint, rails wired to local fakes, a signed-in operator), and each answer's status
 * must be documented for that operation and its body must validate against the documented schema.
 * A route the tour does not call fails the last test, so a new route cannot go unchecked.
 * Where the tour's call answers an error on purpose, ERROR_ANSWERS says why (the error envelope
 * and the route's documented codes are then what is checked).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type supertest from 'supertest';
import { ALL_ROUTES } from '../../functions/src/app/groups';
import { routeKey } from '../../functions/src/app/openapi/routeErrors';
import { LocalSecretStore } from '../../functions/src/secrets/store';
import { LocalSecretWriter } from '../../functions/src/secrets/writer';
import { createTestService, lockHeaders, seedProject, type SeededProject, type TestService } from '../support/harness';
import { expectDocumented } from '../support/openapiConformance';
import { transactionPayload } from '../rails/support/applePayloads';
import { signedNotification } from '../../fixtures/applePayloads';
import { pushBody } from '../rails/support/googleFake';
import { createRailsWorld, postApple, postGoogle, postStripe, type RailsWorld } from '../rails/support/railsWorld';
import { stripeEvent, stripeIds } from '../rails/support/stripeFake';
import { base64Json, file, smallMap, uploadBody } from '../sourcemaps/fixtures';
import { enableLocalLogin } from '../support/localSignIn';

let service: TestService;
let project: SeededProject;
let world: RailsWorld;
let operator: Record<string, string>;
/** What earlier stops of the tour made, for later ones. */
const made: Record<string, string> = {};
const called = new Set<string>();

const secretsFile = join(mkdtempSync(join(tmpdir(), 'openapi-live-')), 'secrets.json');

beforeAll(async () => {
  service = createTestService({ operatorSecrets: new LocalSecretWriter(secretsFile), secrets: new LocalSecretStore({ file: secretsFile, environment: {} }), settings: { webhooksAllowLoopback: true } });
  project = await seedProject(service, { scopes: ['reporting:aggregate', 'revenue:read', 'errors:read', 'buckets:read', 'reporting:identity'], acknowledgeRowLevelData: true });
  world = await createRailsWorld();
  const loginToken = enableLocalLogin(service.deps.operators);
  const login = await service.request().post('/v1/dashboard-api/session/local').send({ loginToken });
  expectDocumented(login, 'POST', '/v1/dashboard-api/session/local');
  called.add('POST /v1/dashboard-api/session/local');
  operator = { Authorization: `Bearer ${login.body.data.sessionToken}` };
});
afterAll(async () => {
  await world.stop();
});
beforeEach(() => service.clock.advance(61_000));

const pub = () => ({ Authorization: `Bearer ${project.ios.test.publishable}`, ...lockHeaders('ios') });
const secret = () => ({ Authorization: `Bearer ${project.ios.test.secret}` });
const IN = () => `/v1/dashboard-api/projects/${project.projectId}/test`;

type Call = () => Promise<{ method: string; path: string; res: supertest.Response }>;
const get = (path: string, headers: Record<string, string> = {}): Call => async () => ({ method: 'GET', path, res: await service.request().get(path).set(headers) });
const post = (path: string, body: object | undefined, headers: Record<string, string> = {}): Call => async () => ({ method: 'POST', path, res: await service.request().post(path).set(headers).send(body ?? {}) });
/** A call whose path, body or headers exist only once earlier stops ran. */
const lazy = (make: () => Call): Call => () => make()();

/** Routes whose tour call answers an error on purpose, and why. */
const ERROR_ANSWERS: Record<string, string> = {
  [`POST /v1/dashboard-api/projects/:projectId/:env/conflicts/:conflictId/resolve`]: 'no conflict exists in the tour: an unknown conflict is 400',
  [`POST /v1/dashboard-api/projects/:projectId/:env/webhook-events/:eventId/replay`]: 'the test event is replayed only once delivered; an unknown event is 400',
  'GET /v1/reports/errors/:fingerprint': 'an unknown fingerprint is 400',
  [`GET /v1/dashboard-api/projects/:projectId/:env/errors/:fingerprint`]: 'an unknown fingerprint is 400',
};

/** One stop per route, in an order where each finds what it needs. Keys are `METHOD path` of the route table. */
const TOUR: [string, Call][] = [
  ['GET /v1/healthz', get('/v1/healthz')],
  ['GET /v1/sdk/versions', get('/sdk/versions')],
  ['GET /v1/openapi.json', get('/v1/openapi.json')],
  ['GET /v1/config', lazy(() => get('/v1/config', pub()))],
  ['GET /v1/sdk/heartbeat', lazy(() => get('/v1/sdk/heartbeat', { ...pub(), 'Service-Sdk-Version': 'tessera-swift@1.0.0' }))],
  ['POST /v1/identify', async () => {
    const call = await post('/v1/identify', { userId: 'tour-user', anonymousId: 'tour-device', email: 'tour@example.com' }, pub())();
    made.customerId = call.res.body.serviceCustomerId;
    return call;
  }],
  ['POST /v1/identify', lazy(() => post('/v1/identity/alias', { userId: 'tour-user', anonymousId: 'tour-device' }, pub()))],
  ['GET /v1/entitlements', lazy(() => get('/v1/entitlements?userId=tour-user', pub()))],
  ['POST /v1/resolve', lazy(() => post('/v1/resolve', { anonymousId: 'tour-device' }, pub()))],
  ['POST /v1/events', lazy(() => post('/v1/events', { events: [{ name: 'opened', anonymousId: 'tour-device' }, { name: 'crash', level: 'error', anonymousId: 'tour-device', properties: { message: 'boom' } }] }, pub()))],
  ['POST /v1/server/customers/:customerId/grant', async () => {
    const path = `/v1/server/customers/${made.customerId}/grant`;
    const call = await post(path, { entitlementKey: 'tour_pro', duration: 'P30D', reason: 'A grant made by the OpenAPI tour test.' }, secret())();
    return call;
  }],
  ['GET /v1/server/customers/:customerId/entitlements', lazy(() => get(`/v1/server/customers/${made.customerId}/entitlements`, secret()))],
  ['POST /v1/server/customers/:customerId/revoke', async () => {
    const call = await post(`/v1/server/customers/${made.customerId}/revoke`, { entitlementKey: 'tour_pro', reason: 'tour' }, secret())();
    made.auditEventId = (await service.request().get(`${IN()}/customers/${made.customerId}/audit`).set(operator)).body.data?.entries?.[0]?.eventId ?? '';
    return call;
  }],
  ['GET /v1/server/audit/:eventId', async () => {
    const detail = (await service.request().get(`${IN()}/customers/${made.customerId}`).set(operator)).body.data;
    made.auditEventId = detail.audit?.[0]?.eventId ?? detail.audit?.entries?.[0]?.eventId;
    return get(`/v1/server/audit/${made.auditEventId}`, secret())();
  }],
  ['POST /v1/server/customers/alias', lazy(() => post('/v1/server/customers/alias', { links: [{ userId: 'tour-bulk', anonymousId: 'tour-bulk-device' }] }, secret()))],
  ['POST /v1/migration/users', lazy(() => post('/v1/migration/users', { users: [{ developerUserId: 'tour-migrated', entitlements: { tour_legacy: true } }] }, secret()))],
  ['POST /v1/identity/forget', lazy(() => post('/v1/identity/forget', { anonymousId: 'tour-bulk-device' }, pub()))],
  ['POST /v1/releases/sourcemaps', lazy(() => post('/v1/releases/sourcemaps', uploadBody('tour-1.0.0', 'sandbox', [file('https://app.example.com/app.js', smallMap())]), secret()))],
  ['GET /v1/reports/subscribers', lazy(() => get('/v1/reports/subscribers', secret()))],
  ['GET /v1/reports/revenue', lazy(() => get('/v1/reports/revenue', secret()))],
  ['GET /v1/reports/events', lazy(() => get('/v1/reports/events', secret()))],
  ['GET /v1/reports/errors', lazy(() => get('/v1/reports/errors', secret()))],
  ['GET /v1/reports/errors/:fingerprint', lazy(() => get('/v1/reports/errors/fp_unknown', secret()))],
  ['GET /v1/reports/customers', lazy(() => get('/v1/reports/customers', secret()))],
  // Rails, against the rails world's project and fakes.
  ['POST /v1/purchases/sync', async () => {
    const path = '/v1/purchases/sync';
    const res = await world.service.request().post(path).set({ Authorization: `Bearer ${world.project.ios.test.publishable}`, ...lockHeaders('ios') }).send({ rail: 'apple', signedTransactionInfo: world.apple.sign(transactionPayload()) });
    return { method: 'POST', path, res };
  }],
  ['POST /v1/purchases/sync', async () => {
    const path = '/v1/purchases';
    const res = await world.service.request().post(path).set({ Authorization: `Bearer ${world.project.ios.test.publishable}`, ...lockHeaders('ios') }).send({ rail: 'apple', signedTransactionInfo: world.apple.sign(transactionPayload()) });
    return { method: 'POST', path, res };
  }],
  ['POST /v1/webhooks/stripe/:projectId', async () => ({
    method: 'POST',
    path: `/v1/webhooks/stripe/${world.project.projectId}`,
    res: await postStripe(world, stripeEvent('customer.created', { id: stripeIds.customer(), object: 'customer' })),
  })],
  ['POST /v1/webhooks/apple/:projectId', async () => ({
    method: 'POST',
    path: `/v1/webhooks/apple/${world.project.projectId}`,
    res: await postApple(world, signedNotification(world.apple, { notificationType: 'TEST' }).signedPayload),
  })],
  ['POST /v1/webhooks/google/:projectId', async () => ({
    method: 'POST',
    path: `/v1/webhooks/google/${world.project.projectId}`,
    res: await postGoogle(world, pushBody({ version: '1.0', packageName: 'com.example.android', eventTimeMillis: String(Date.now()), testNotification: { version: '1.0' } }), await world.google.pushToken({ audience: world.pushAudience })),
  })],
  // The dashboard, as a signed-in operator.
  ['GET /v1/dashboard-api/session', lazy(() => get('/v1/dashboard-api/session', operator))],
  ['GET /v1/dashboard-api/session/options', get('/v1/dashboard-api/session/options')],
  ['GET /v1/dashboard-api/projects/:projectId/:env/overview', lazy(() => get(`${IN()}/overview?days=7`, operator))],
  ['POST /v1/dashboard-api/projects/:projectId/:env/apps', async () => {
    const call = await post(`${IN()}/apps`, { platform: 'web', name: 'Tour web', allowedOrigins: ['https://tour.example.com'] }, operator)();
    made.appId = call.res.body.data.appId;
    return call;
  }],
  ['POST /v1/dashboard-api/projects/:projectId/:env/apps/:appId/keys', async () => {
    const call = await post(`${IN()}/apps/${made.appId}/keys`, undefined, operator)();
    made.keyId = call.res.body.data.secret.id;
    return call;
  }],
  ['GET /v1/dashboard-api/projects/:projectId/:env/apps', lazy(() => get(`${IN()}/apps`, operator))],
  ['POST /v1/dashboard-api/projects/:projectId/:env/keys/:keyId/rotate', async () => {
    const call = await post(`${IN()}/keys/${made.keyId}/rotate`, { grace: '1h' }, operator)();
    made.rotatedKeyId = call.res.body.data.key?.id ?? call.res.body.data.secret?.id ?? made.keyId;
    return call;
  }],
  ['POST /v1/dashboard-api/projects/:projectId/:env/keys/:keyId/revoke', lazy(() => post(`${IN()}/keys/${made.keyId}/revoke`, undefined, operator))],
  ['GET /v1/dashboard-api/projects/:projectId/:env/customers', lazy(() => get(`${IN()}/customers?q=tour-user`, operator))],
  ['GET /v1/dashboard-api/projects/:projectId/:env/customer-list', lazy(() => get(`${IN()}/customer-list?limit=5`, operator))],
  ['GET /v1/dashboard-api/projects/:projectId/:env/customers/:customerId', lazy(() => get(`${IN()}/customers/${made.customerId}`, operator))],
  ['GET /v1/dashboard-api/projects/:projectId/:env/customers/:customerId/audit', lazy(() => get(`${IN()}/customers/${made.customerId}/audit`, operator))],
  ['GET /v1/dashboard-api/projects/:projectId/:env/customers/:customerId/events', lazy(() => get(`${IN()}/customers/${made.customerId}/events`, operator))],
  ['POST /v1/dashboard-api/projects/:projectId/:env/customers/:customerId/grant', lazy(() => post(`${IN()}/customers/${made.customerId}/grant`, { entitlementKey: 'tour_dash', duration: 'lifetime', reason: 'A grant made from the dashboard by the tour.' }, operator))],
  ['POST /v1/dashboard-api/projects/:projectId/:env/customers/:customerId/revoke', lazy(() => post(`${IN()}/customers/${made.customerId}/revoke`, { entitlementKey: 'tour_dash', reason: 'tour revoke' }, operator))],
  ['GET /v1/dashboard-api/projects/:projectId/:env/audit/:eventId', lazy(() => get(`${IN()}/audit/${made.auditEventId}`, operator))],
  ['GET /v1/dashboard-api/projects/:projectId/:env/conflicts', lazy(() => get(`${IN()}/conflicts`, operator))],
  ['GET /v1/dashboard-api/projects/:projectId/:env/identity-settings', lazy(() => get(`${IN()}/identity-settings`, operator))],
  ['POST /v1/dashboard-api/projects/:projectId/:env/conflicts/:conflictId/resolve', lazy(() => post(`${IN()}/conflicts/conflict_unknown/resolve`, { decision: 'merge' }, operator))],
  ['GET /v1/dashboard-api/projects/:projectId/:env/rails', lazy(() => get(`${IN()}/rails`, operator))],
  ['POST /v1/dashboard-api/projects/:projectId/:env/rails/stripe', lazy(() => post(`${IN()}/rails/stripe`, { secretKeyRef: 'stripe-tour-key', webhookSecretRef: 'stripe-tour-whsec' }, operator))],
  ['POST /v1/dashboard-api/projects/:projectId/:env/rails/apple', lazy(() => post(`${IN()}/rails/apple`, { bundleId: 'com.example.tour', rootCertificates: [world.apple.rootBase64] }, operator))],
  ['POST /v1/dashboard-api/projects/:projectId/:env/rails/google', lazy(() => post(`${IN()}/rails/google`, { packageName: 'com.example.tour', serviceAccountRef: 'play-tour', pushAudience: 'https://tour.example.com/v1/webhooks/google', pushServiceAccountEmail: 'push@tour.iam.gserviceaccount.com' }, operator))],
  ['GET /v1/dashboard-api/projects/:projectId/:env/errors', lazy(() => get(`${IN()}/errors`, operator))],
  ['GET /v1/dashboard-api/projects/:projectId/:env/errors/:fingerprint', lazy(() => get(`${IN()}/errors/fp_unknown`, operator))],
  ['GET /v1/dashboard-api/projects/:projectId/:env/releases/:release/sourcemaps', lazy(() => get(`${IN()}/releases/tour-1.0.0/sourcemaps`, operator))],
  ['POST /v1/dashboard-api/projects/:projectId/:env/webhooks', async () => {
    const call = await post(`${IN()}/webhooks`, { url: 'http://127.0.0.1:9/tour', eventTypes: ['entitlement.granted'] }, operator)();
    made.endpointId = call.res.body.data.endpoint.endpointId;
    return call;
  }],
  ['GET /v1/dashboard-api/projects/:projectId/:env/webhooks', lazy(() => get(`${IN()}/webhooks`, operator))],
  ['POST /v1/dashboard-api/projects/:projectId/:env/webhooks/:endpointId/update', lazy(() => post(`${IN()}/webhooks/${made.endpointId}/update`, { url: 'http://127.0.0.1:9/tour-v2' }, operator))],
  ['POST /v1/dashboard-api/projects/:projectId/:env/webhooks/:endpointId/rotate-secret', lazy(() => post(`${IN()}/webhooks/${made.endpointId}/rotate-secret`, { grace: '0' }, operator))],
  ['POST /v1/dashboard-api/projects/:projectId/:env/webhooks/:endpointId/test', lazy(() => post(`${IN()}/webhooks/${made.endpointId}/test`, undefined, operator))],
  ['GET /v1/dashboard-api/projects/:projectId/:env/webhooks/:endpointId/deliveries', lazy(() => get(`${IN()}/webhooks/${made.endpointId}/deliveries`, operator))],
  ['POST /v1/dashboard-api/projects/:projectId/:env/webhook-events/:eventId/replay', lazy(() => post(`${IN()}/webhook-events/evt_unknown/replay`, { endpointId: made.endpointId }, operator))],
  ['POST /v1/dashboard-api/projects/:projectId/:env/webhooks/:endpointId/disable', lazy(() => post(`${IN()}/webhooks/${made.endpointId}/disable`, { note: 'tour' }, operator))],
  ['POST /v1/dashboard-api/projects/:projectId/:env/webhooks/:endpointId/enable', lazy(() => post(`${IN()}/webhooks/${made.endpointId}/enable`, undefined, operator))],
  ['DELETE /v1/dashboard-api/projects/:projectId/:env/webhooks/:endpointId', async () => {
    const path = `${IN()}/webhooks/${made.endpointId}`;
    return { method: 'DELETE', path, res: await service.request().delete(path).set(operator) };
  }],
  ['POST /v1/dashboard-api/projects/:projectId/:env/customers/:customerId/erase', lazy(() => post(`${IN()}/customers/${made.customerId}/erase`, { confirmCustomerId: made.customerId }, operator))],
  ['POST /v1/dashboard-api/session/sign-out', lazy(() => post('/v1/dashboard-api/session/sign-out', undefined, operator))],
];

describe.each(TOUR.map(([key, stop], i) => [`${i + 1}. ${key}`, key, stop] as const))('%s', (_name, key, stop) => {
  it('answers as the document says', async () => {
    const { method, path, res } = await stop();
    called.add(key);
    expectDocumented(res, method, path);
    if (ERROR_ANSWERS[key]) expect([key, res.status >= 400, res.body.error?.code]).toEqual([key, true, expect.any(String)]);
    else expect([key, res.status, res.body.error]).toEqual([key, expect.any(Number), undefined]);
    if (!ERROR_ANSWERS[key]) expect(res.status).toBeLessThan(300);
  });
});

it('called every route the service mounts', () => {
  expect([...called].sort()).toEqual([...new Set(ALL_ROUTES.map(routeKey))].sort());
});
