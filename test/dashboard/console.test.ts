/**
 * Guarantees of the dashboard's operations, through its API with a local operator session:
 * each calls the same operator service as the CLI and is audited with the operator as actor
 * (apps and keys with the key-activity list, manual grant and revoke with a reason, erasure,
 * conflict resolution, rails references, webhook endpoints); a secret key's plaintext appears
 * only in the answer that minted it; every read and write follows the environment in the path
 * and never reaches the other environment's data; an error group's sample is symbolicated
 * against its release's source maps.
 */
import { setTransferBehavior } from '../../functions/src/identity/transferPolicy';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalSecretStore } from '../../functions/src/secrets/store';
import { LocalSecretWriter } from '../../functions/src/secrets/writer';
import { linkMigratedUser } from '../../functions/src/identity/repository';
import { EnvScope } from '../../functions/src/store/scope';
import { webhookEventId } from '../../functions/src/webhooks/eventIds';
import { createTestService, expectError, lockHeaders, seedProject, type SeededProject, type TestService } from '../support/harness';
import { enableLocalLogin } from '../support/localSignIn';

let service: TestService;
let project: SeededProject;
let session: Record<string, string>;
const secretsFile = join(mkdtempSync(join(tmpdir(), 'dash-secrets-')), 'secrets.json');

beforeAll(async () => {
  service = createTestService({ operatorSecrets: new LocalSecretWriter(secretsFile), secrets: new LocalSecretStore({ file: secretsFile, environment: {} }), settings: { webhooksAllowLoopback: true }, webhookDelivery: { retryDelaySeconds: () => 0 } });
  project = await seedProject(service);
  const loginToken = enableLocalLogin(service.deps.operators);
  const res = await service.request().post('/v1/dashboard-api/session/local').send({ loginToken });
  session = { Authorization: `Bearer ${res.body.data.sessionToken}` };
});
beforeEach(() => service.clock.advance(61_000));

const base = (env: 'test' | 'live') => `/v1/dashboard-api/projects/${project.projectId}/${env}`;
const get = (env: 'test' | 'live', path: string) => service.request().get(`${base(env)}${path}`).set(session);
const post = (env: 'test' | 'live', path: string, body: object = {}) => service.request().post(`${base(env)}${path}`).set(session).send(body);
const audit = async (env: 'test' | 'live', eventId: string) => (await get(env, `/audit/${eventId}`)).body.data;
const pub = (env: 'test' | 'live' = 'test') => ({ Authorization: `Bearer ${project.ios[env].publishable}`, ...lockHeaders('ios') });

describe('apps and keys', () => {
  it('refuses a native app without its store identifier, naming it as the page does', async () => {
    const ios = await post('test', '/apps', { platform: 'ios', name: 'No bundle' });
    expectError(ios, 400, 'invalid_request_error', 'invalid_param_value');
    expect(ios.body.error.message).toBe('An iOS app needs a bundle ID.');
    const android = await post('test', '/apps', { platform: 'android', name: 'No package' });
    expect(android.body.error.message).toBe('An Android app needs a package name.');
  });

  it('creates an app and its keys (secret shown once), rotates with a grace, revokes, and lists the activity', async () => {
    const created = await post('test', '/apps', { platform: 'web', name: 'Console web', allowedOrigins: ['https://console.example.com'] });
    expect(created.status).toBe(200);
    const { appId } = created.body.data;
    const keys = await post('test', `/apps/${appId}/keys`);
    expect(keys.status).toBe(200);
    const secret: string = keys.body.data.secret.key;
    expect(secret).toMatch(/^cd_sk_test_/);
    expect((await audit('test', keys.body.data.auditEventId)).details).toMatchObject({ surface: 'dashboard', operator: 'local-operator@localhost', appId });

    const listed = (await get('test', '/apps')).body.data.find((a: { appId: string }) => a.appId === appId);
    expect(listed).toMatchObject({ name: 'Console web', allowedOrigins: ['https://console.example.com'] });
    expect(JSON.stringify(listed)).not.toContain(secret); // shown once: listings carry the masked display
    expect(listed.keys.map((k: { state: string }) => k.state)).toEqual(['active', 'active']);

    const rotated = await post('test', `/keys/${keys.body.data.secret.id}/rotate`, { grace: '1h' });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.oldKeyExpiresAt).toBe(service.clock.now() + 3_600_000);
    expect((await audit('test', rotated.body.data.auditEventId)).eventType).toBe('api_key.rotated');
    const revoked = await post('test', `/keys/${rotated.body.data.newKey.id}/revoke`);
    expect((await audit('test', revoked.body.data.auditEventId)).eventType).toBe('api_key.revoked');
    expectError(await service.request().get('/v1/server/audit/x').set('Authorization', `Bearer ${rotated.body.data.newKey.key}`), 401, 'authentication_error', 'key_revoked');

    const after = (await get('test', '/apps')).body.data.find((a: { appId: string }) => a.appId === appId);
    expect(after.activity.map((a: { action: string; operator?: string }) => [a.action, a.operator])).toEqual([
      ['revoked', 'local-operator@localhost'],
      ['rotated', 'local-operator@localhost'],
      ['created', 'local-operator@localhost'],
      ['created', 'local-operator@localhost'],
    ]);
    expectError(await post('test', `/keys/${keys.body.data.secret.id}/rotate`, { grace: '3w' }), 400, 'invalid_request_error', 'invalid_param_value');
    expectError(await post('test', `/keys/${secret}/revoke`), 400, 'invalid_request_error', 'invalid_param_value'); // ids only, never plaintext in a path
  });

  it('never reaches the other environment: live keys are not listed in test and cannot be rotated or revoked from it', async () => {
    const apps = (await get('test', '/apps')).body.data;
    expect(apps.flatMap((a: { keys: { env: string }[] }) => a.keys.map((k) => k.env))).not.toContain('live');
    expectError(await post('test', `/keys/${project.web.live.secretId}/revoke`), 400, 'invalid_request_error', 'invalid_param_value');
    expect((await service.request().get('/v1/server/audit/x').set('Authorization', `Bearer ${project.web.live.secret}`)).status).toBe(400); // still working
  });
});

describe('customers', () => {
  let customerId: string;
  beforeAll(async () => {
    const res = await service.request().post('/v1/identify').set(pub()).send({ userId: 'dash-user', anonymousId: 'dash-phone', traits: { plan: 'pro' } });
    customerId = res.body.serviceCustomerId;
  });

  it('finds a customer by customer id, user id and anonymous id, in its own environment only', async () => {
    for (const q of [customerId, 'dash-user', 'dash-phone']) {
      const res = await get('test', `/customers?q=${encodeURIComponent(q)}`);
      expect(res.body.data.map((c: { customerId: string }) => c.customerId)).toEqual([customerId]);
    }
    expect((await get('live', `/customers?q=dash-user`)).body.data).toEqual([]);
    expectError(await get('live', `/customers/${customerId}`), 400, 'invalid_request_error', 'invalid_param_value');
  });

  it('finds a customer by email', async () => {
    const migrated = await linkMigratedUser(new EnvScope(service.deps.db, project.projectId, 'test'), [{ kind: 'developer', id: 'mail-user' }], { email: 'person@example.com', traits: {} }, service.clock.now());
    const res = await get('test', `/customers?q=${encodeURIComponent('person@example.com')}`);
    expect(res.body.data).toEqual([{ customerId: migrated.customerId, matchedBy: 'email' }]);
  });

  it('grants and revokes with a reason, audited with the operator, and shows them on the customer', async () => {
    const granted = await post('test', `/customers/${customerId}/grant`, { entitlementKey: 'pro', duration: 'P30D', reason: 'Support goodwill for the outage ticket' });
    expect(granted.status).toBe(200);
    const entry = await audit('test', granted.body.data.auditEventId);
    expect(entry).toMatchObject({ eventType: 'entitlement.granted_manually', reason: 'Support goodwill for the outage ticket', details: { surface: 'dashboard', operator: 'local-operator@localhost' } });
    let detail = (await get('test', `/customers/${customerId}`)).body.data;
    expect(detail.entitlements.map((e: { key?: string; entitlementKey?: string }) => JSON.stringify(e))).toEqual([expect.stringContaining('pro')]);
    expect(detail.customer.traits).toEqual({ plan: 'pro' });
    expect(detail.identityLinks.map((l: { kind: string; assurance: string }) => [l.kind, l.assurance])).toEqual(expect.arrayContaining([['developer', 'self_asserted']]));

    const revoked = await post('test', `/customers/${customerId}/revoke`, { entitlementKey: 'pro', reason: 'granted by mistake' });
    expect((await audit('test', revoked.body.data.auditEventId)).details).toMatchObject({ surface: 'dashboard', operator: 'local-operator@localhost' });
    detail = (await get('test', `/customers/${customerId}`)).body.data;
    expect(detail.entitlements).toEqual([]);
    expect(detail.grants).toEqual([expect.objectContaining({ entitlementKey: 'pro', revokedAt: service.clock.now() })]);
    expect(detail.audit.map((a: { eventId: string }) => a.eventId)).toEqual(expect.arrayContaining([granted.body.data.auditEventId, revoked.body.data.auditEventId]));
    expectError(await post('test', `/customers/${customerId}/grant`, { entitlementKey: 'pro', duration: 'P30D', reason: 'too short' }), 400, 'invalid_request_error', 'invalid_param_value');
  });

  it('erases a customer after the id is typed again, audited with the operator', async () => {
    const other = (await service.request().post('/v1/identify').set(pub()).send({ userId: 'erase-me', anonymousId: 'erase-phone' })).body.serviceCustomerId;
    expectError(await post('test', `/customers/${other}/erase`, { confirmCustomerId: customerId }), 400, 'invalid_request_error', 'invalid_param_value');
    const res = await post('test', `/customers/${other}/erase`, { confirmCustomerId: other });
    expect(res.body.data.customerId).toBe(other);
    await service.tasks.drain();
    const detail = (await get('test', `/customers/${other}`)).body.data;
    expect(detail.customer.status).toBe('erased');
    const requested = detail.audit.find((a: { eventType: string }) => a.eventType === 'customer.erasure_requested');
    expect(requested.details).toMatchObject({ authority: 'operator', surface: 'dashboard', operator: 'local-operator@localhost' });
  });
});

describe('conflicts', () => {
  it('shows both customers side by side and merges, audited with the operator', async () => {
    const scope = new EnvScope(service.deps.db, project.projectId, 'test');
    const user = (await service.request().post('/v1/identify').set(pub()).send({ userId: 'c-user', anonymousId: 'c-phone' })).body.serviceCustomerId;
    const device = (await linkMigratedUser(scope, [{ kind: 'anonymous', id: 'c-tablet' }], { email: 'old@example.com', traits: { plan: 'free' } }, service.clock.now())).customerId;
    expect((await service.request().post('/v1/identify').set(pub()).send({ userId: 'c-user', anonymousId: 'c-tablet' })).body.mergePending).toBe(true);
    const conflicts = (await get('test', '/conflicts')).body.data;
    const conflict = conflicts.find((c: { canonicalCustomerId: string }) => c.canonicalCustomerId === user);
    expect(conflict.customers.map((c: { customer: { customerId: string } }) => c.customer.customerId)).toEqual([user, device]);
    expect((await get('live', '/conflicts')).body.data).toEqual([]);
    expectError(await post('live', `/conflicts/${conflict.conflictId}/resolve`, { decision: 'merge' }), 400, 'invalid_request_error', 'invalid_param_value');

    // An endpoint receives `customer.merged` (with none, the event is written already fanned out: nothing to send).
    const subscriber = (await post('test', '/webhooks', { url: 'http://127.0.0.1:9/merges', eventTypes: ['customer.merged'] })).body.data.endpoint.endpointId;
    const enqueued = jest.spyOn(service.deps.tasks, 'enqueue');
    const merged = await post('test', `/conflicts/${conflict.conflictId}/resolve`, { decision: 'merge' });
    expect(merged.body.data).toMatchObject({ decision: 'merged', canonicalCustomerId: user, mergedCustomerIds: [device] });
    // Its `customer.merged` webhook event fans out at once (not a minute later through the relay).
    const mergedEventId = webhookEventId(scope, `audit/${merged.body.data.auditEventId}`);
    expect(enqueued).toHaveBeenCalledWith('webhookFanout', expect.objectContaining({ projectId: project.projectId, env: 'test', eventId: mergedEventId }), { id: mergedEventId });
    enqueued.mockRestore();
    expect((await service.request().delete(`${base('test')}/webhooks/${subscriber}`).set(session)).status).toBe(200); // the endpoint suites below start with none
    expect((await audit('test', merged.body.data.auditEventId)).details).toMatchObject({ surface: 'dashboard', operator: 'local-operator@localhost' });
    expect((await get('test', '/conflicts')).body.data.find((c: { conflictId: string }) => c.conflictId === conflict.conflictId)).toBeUndefined();
  });
});

describe('identity settings', () => {
  it('states the project’s identity policy and transfer setting, read-only', async () => {
    expect((await get('test', '/identity-settings')).body.data).toEqual({ providerConfigured: false, requireVerifiedIdentity: false, subscriptionTransfer: 'keep' });
    await setTransferBehavior(service.deps.db, project.projectId, 'transfer', service.clock.now());
    expect((await get('live', '/identity-settings')).body.data).toMatchObject({ subscriptionTransfer: 'transfer' });
    await setTransferBehavior(service.deps.db, project.projectId, 'keep', service.clock.now());
  });
});

describe('rails', () => {
  it('sets references and shows them, never accepting a secret value', async () => {
    const set = await post('live', '/rails/stripe', { secretKeyRef: 'stripe-live-key', webhookSecretRef: 'stripe-live-whsec' });
    expect(set.body.data.rails.stripe).toEqual({ secretKeyRef: 'stripe-live-key', webhookSecretRef: 'stripe-live-whsec' });
    expect((await audit('live', set.body.data.auditEventId)).details).toMatchObject({ rail: 'stripe', operator: 'local-operator@localhost' });
    const refused = await post('live', '/rails/stripe', { secretKeyRef: 'sk_live_abcdef', webhookSecretRef: 'x' });
    expectError(refused, 400, 'invalid_request_error', 'invalid_param_value');
    expect(JSON.stringify(refused.body)).not.toContain('sk_live_abcdef');
    expect((await get('test', '/rails')).body.data.stripe).toBeNull();
  });

  it('names the body field a refusal is about, not a CLI flag', async () => {
    const stripe = await post('live', '/rails/stripe', { secretKeyRef: 'sk_live_abcdef', webhookSecretRef: 'x' });
    expect(stripe.body.error.message).toMatch(/^secretKeyRef looks like a Stripe secret/);
    const apple = await post('test', '/rails/apple', { bundleId: 'bad id!' });
    expectError(apple, 400, 'invalid_request_error', 'invalid_param_value');
    expect(apple.body.error.message).toMatch(/^bundleId must be a bundle identifier/);
    const google = await post('test', '/rails/google', { packageName: 'com.example.app', serviceAccountRef: 'play-service-account' });
    expect(google.body.error.message).toMatch(/^pushAudience is required/);
    for (const refusal of [stripe, apple, google]) expect(refusal.body.error.message).not.toContain('--');
  });
});

describe('webhook endpoints', () => {
  it('registers (secret shown once), rotates and disables endpoints of the path’s environment only', async () => {
    const created = await post('test', '/webhooks', { url: 'http://127.0.0.1:9/hook', eventTypes: ['entitlement.granted'] });
    expect(created.status).toBe(200);
    const { endpointId } = created.body.data.endpoint;
    expect(created.body.data.secret).toMatch(/^whsec_/);
    expect(readFileSync(secretsFile, 'utf8')).toContain(created.body.data.secret);
    const listed = (await get('test', '/webhooks')).body.data;
    expect(listed.map((e: { endpointId: string }) => e.endpointId)).toEqual([endpointId]);
    expect(JSON.stringify(listed)).not.toContain(created.body.data.secret);
    expect((await get('live', '/webhooks')).body.data).toEqual([]);
    const rotated = await post('test', `/webhooks/${endpointId}/rotate-secret`, { grace: '24h' });
    expect(rotated.body.data.secret).not.toBe(created.body.data.secret);
    const disabled = await post('test', `/webhooks/${endpointId}/disable`, { note: 'receiver down' });
    expect(disabled.body.data.endpoint.enabled).toBe(false);
    expect((await audit('test', disabled.body.data.auditEventId)).details).toMatchObject({ surface: 'dashboard', operator: 'local-operator@localhost' });
    expectError(await post('live', `/webhooks/${endpointId}/enable`), 400, 'invalid_request_error', 'invalid_param_value');
  });
});

describe('webhook endpoints: edit and delete', () => {
  const del = (env: 'test' | 'live', path: string) => service.request().delete(`${base(env)}${path}`).set(session);

  it('edits the URL and event types, and deletes the endpoint with its secrets, in the path’s environment only', async () => {
    const created = (await post('test', '/webhooks', { url: 'http://127.0.0.1:9/hook', eventTypes: ['entitlement.granted'] })).body.data;
    const { endpointId } = created.endpoint;
    const edited = await post('test', `/webhooks/${endpointId}/update`, { url: 'http://127.0.0.1:9/v2', eventTypes: ['customer.merged'] });
    expect(edited.status).toBe(200);
    expect(edited.body.data.endpoint).toMatchObject({ url: 'http://127.0.0.1:9/v2', eventTypes: ['customer.merged'] });
    expect((await audit('test', edited.body.data.auditEventId)).details).toMatchObject({ surface: 'dashboard', operator: 'local-operator@localhost', previousUrl: 'http://127.0.0.1:9/hook' });
    expectError(await post('test', `/webhooks/${endpointId}/update`, { url: 'https://169.254.169.254/latest' }), 400, 'invalid_request_error', 'invalid_param_value');
    expectError(await post('test', `/webhooks/${endpointId}/update`, { eventTypes: 'customer.merged' }), 400, 'invalid_request_error', 'invalid_param_value');

    // The other environment can neither edit nor delete it; nobody without a session can.
    expectError(await post('live', `/webhooks/${endpointId}/update`, { url: 'http://127.0.0.1:9/x' }), 400, 'invalid_request_error', 'invalid_param_value');
    expectError(await del('live', `/webhooks/${endpointId}`), 400, 'invalid_request_error', 'invalid_param_value');
    expect((await service.request().delete(`${base('test')}/webhooks/${endpointId}`)).status).toBe(401);
    expect((await get('test', '/webhooks')).body.data.map((e: { endpointId: string }) => e.endpointId)).toContain(endpointId);

    const deleted = await del('test', `/webhooks/${endpointId}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toMatchObject({ endpointId, deleted: true, secretsRemoved: 1, secretsNotRemoved: [] });
    expect(readFileSync(secretsFile, 'utf8')).not.toContain(created.secret);
    expect((await get('test', '/webhooks')).body.data.map((e: { endpointId: string }) => e.endpointId)).not.toContain(endpointId);
    expect((await audit('test', deleted.body.data.auditEventId)).eventType).toBe('webhook_endpoint.deleted');
    expectError(await del('test', `/webhooks/${endpointId}`), 400, 'invalid_request_error', 'invalid_param_value');
  });
});

describe('webhook deliveries', () => {
  it('sends a test event, lists the delivery with its attempts, and replays it, each audited with the operator', async () => {
    const received: { type: string; id: string }[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push(JSON.parse(body));
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = receiver.address() as AddressInfo;
      const { endpoint } = (await post('live', '/webhooks', { url: `http://127.0.0.1:${port}/hook` })).body.data;
      const sent = await post('live', `/webhooks/${endpoint.endpointId}/test`);
      expect(sent.status).toBe(200);
      expect((await audit('live', sent.body.data.auditEventId)).details).toMatchObject({ surface: 'dashboard', operator: 'local-operator@localhost', endpointId: endpoint.endpointId });
      await service.tasks.drain();
      expect(received.map((e) => e.type)).toEqual(['webhook.test']);
      let deliveries = (await get('live', `/webhooks/${endpoint.endpointId}/deliveries`)).body.data;
      expect(deliveries).toEqual([expect.objectContaining({ eventId: sent.body.data.eventId, state: 'delivered', attempts: [expect.objectContaining({ statusCode: 200 })] })]);

      const replayed = await post('live', `/webhook-events/${sent.body.data.eventId}/replay`, { endpointId: endpoint.endpointId });
      expect(replayed.status).toBe(200);
      expect((await audit('live', replayed.body.data.auditEventId)).eventType).toBe('webhook_delivery.replayed');
      await service.tasks.drain();
      expect(received.map((e) => e.id)).toEqual([sent.body.data.eventId, sent.body.data.eventId]);
      deliveries = (await get('live', `/webhooks/${endpoint.endpointId}/deliveries`)).body.data;
      expect(deliveries.map((d: { replay: string | null; state: string }) => [d.replay === null ? 'original' : 'replay', d.state]).sort()).toEqual([['original', 'delivered'], ['replay', 'delivered']]);
      // The other environment has neither the endpoint nor the event.
      expectError(await get('test', `/webhooks/${endpoint.endpointId}/deliveries`), 400, 'invalid_request_error', 'invalid_param_value');
      expectError(await post('test', `/webhook-events/${sent.body.data.eventId}/replay`, {}), 400, 'invalid_request_error', 'invalid_param_value');
    } finally {
      receiver.close();
    }
  });
});

describe('errors', () => {
  it('groups error events and symbolicates a sample’s stack against its release’s source maps', async () => {
    const map = { version: 3, file: 'app.min.js', sources: ['src/checkout.ts'], names: ['pay'], mappings: 'AAAAA' };
    const upload = await service
      .request()
      .post('/v1/releases/sourcemaps')
      .set('Authorization', `Bearer ${project.web.test.secret}`)
      .send({ release: '3.1.0', environment: 'sandbox', files: [{ fileUrl: 'https://cdn.example.com/app.min.js', sourceMap: Buffer.from(JSON.stringify(map)).toString('base64') }] });
    expect(upload.status).toBe(200);
    const stack = 'TypeError: card declined\n    at pay (https://cdn.example.com/app.min.js:1:1)';
    const events = [1, 2].map((i) => ({ eventId: `err-${i}`, name: 'checkout_failed', level: 'error', anonymousId: 'dash-phone', properties: { message: `card declined ${i}`, stack, release: '3.1.0' } }));
    expect((await service.request().post('/v1/events').set(pub()).send({ events })).status).toBeLessThan(300);
    await service.tasks.drain();
    const groups = (await get('test', '/errors')).body.data;
    expect(groups.data).toEqual([expect.objectContaining({ name: 'checkout_failed', count: 2, lastRelease: '3.1.0' })]);
    expect((await get('live', '/errors')).body.data.data).toEqual([]);
    const detail = (await get('test', `/errors/${groups.data[0].fingerprint}`)).body.data;
    expect(detail.latestSample.frames[0].original).toMatchObject({ source: 'src/checkout.ts', line: 1 });
    const overview = (await get('test', '/overview?days=7')).body.data;
    expect(overview.series.events.reduce((a: number, b: number) => a + b, 0)).toBeGreaterThanOrEqual(2);
    expect(overview.counts.errorGroups).toBe(1);
    expect((await get('live', '/overview?days=7')).body.data.counts.errorGroups).toBe(0);
    const maps = (await get('test', '/releases/3.1.0/sourcemaps')).body.data;
    expect(maps).toEqual([expect.objectContaining({ fileUrl: 'https://cdn.example.com/app.min.js' })]);
    expect(JSON.stringify(maps)).not.toContain('mappings');
    expect((await get('live', '/releases/3.1.0/sourcemaps')).body.data).toEqual([]);
  });
});
