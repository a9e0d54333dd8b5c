/**
 * Guarantees of `POST /v1/events` on the wire: the exact 202 shape, all-or-nothing validation
 * naming the first failure, soft-drops stored as dropped, the ~1 MB body limit as a 400, envelope
 * environment and appId checks, one landing per event id however often a batch is retried (with
 * a truthful `received`), the TTL field from the project's retention, the 426 switch both ways,
 * and stored events never crossing the environment boundary.
 */
import { DAY } from '../../functions/src/clock';
import { projectRef } from '../../functions/src/projects/paths';
import { readIngestContext } from '../../functions/src/events/repository';
import { EnvScope } from '../../functions/src/store/scope';
import { createTestService, expectError, seedProject, type SeededProject, type TestService } from '../support/harness';
import { describeSecuredRoute } from '../support/securitySuite';
import { event, events, postEvents, storedEvent, storedEvents } from './support';

describeSecuredRoute({ method: 'POST', path: '/v1/events', key: 'any', body: { events: [{ name: 'app_open', anonymousId: 'device-1' }] } });

let service: TestService;
let project: SeededProject;

beforeAll(async () => {
  service = createTestService();
  project = await seedProject(service);
});

afterAll(() => service.tasks.drain());

describe('a burst of batches', () => {
  it('shares one store read among the batches that reach it in the same turn (the first no longer reads alone)', async () => {
    const getAll = jest.spyOn(service.deps.db, 'getAll');
    try {
      const scopes = Array.from({ length: 4 }, () => new EnvScope(service.deps.db, project.projectId, 'test'));
      const reads = await Promise.all(scopes.map((scope) => readIngestContext(scope, [])));
      expect(getAll).toHaveBeenCalledTimes(1);
      expect(reads.every((read) => read.project.exists)).toBe(true);
    } finally {
      getAll.mockRestore();
    }
  });
});

describe('accepting a batch', () => {
  it('answers 202 with exactly object, received and env, and lands every event', async () => {
    const res = await postEvents(service, project, { events: events(3, 'accept') });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ object: 'list', received: 3, env: 'sandbox' });
    expect(res.headers['x-request-id']).toMatch(/^req_/);
    const stored = await storedEvent(service, project.projectId, 'accept-1');
    expect(stored).toMatchObject({ eventId: 'accept-1', eventIdSource: 'client', name: 'screen_view', env: 'sandbox', appId: project.ios.appId, platform: 'ios' });
    expect(stored?.hints).toEqual({ developerUserId: null, anonymousId: 'device-1', serviceCustomerId: null });
  });

  it('accepts publishable and secret keys alike, and the live key answers production', async () => {
    const secret = await service
      .request()
      .post('/v1/events')
      .set('Service-Api-Key', project.web.live.secret)
      .send({ events: [event({ eventId: 'from-server' })] });
    expect(secret.status).toBe(202);
    expect(secret.body).toEqual({ object: 'list', received: 1, env: 'production' });
    expect(await storedEvent(service, project.projectId, 'from-server', 'live')).toMatchObject({ env: 'production', appId: project.web.appId });
  });

  it('stores the event fields: clamped timestamp, properties, error fields, envelope observations', async () => {
    const now = service.clock.now();
    const res = await postEvents(
      service,
      project,
      {
        events: [
          event({ eventId: 'full-1', timestamp: now - 3 * DAY, properties: { plan: 'pro', nested: [[1, 2], { '': 'odd key' }] }, level: 'error', tags: { screen: 'pay' }, categoryTags: ['billing'] }),
        ],
        sdk: { name: '@tessera/swift', version: '1.9.0' },
        envelopeVersion: 2,
        environment: 'sandbox',
        appId: project.ios.appId,
      },
      { headers: { 'Service-Sdk-Version': 'TesseraSwift@1.9.0' } },
    );
    expect(res.status).toBe(202);
    const stored = await storedEvent(service, project.projectId, 'full-1');
    expect(stored).toMatchObject({
      timestamp: now,
      clientTimestamp: now - 3 * DAY,
      receivedAt: now,
      level: 'error',
      tags: { screen: 'pay' },
      categoryTags: ['billing'],
      softDropped: [],
      throttlePass: false,
      sdk: { name: '@tessera/swift', version: '1.9.0' },
      sdkHeader: 'TesseraSwift@1.9.0',
      envelopeVersion: 2,
    });
    expect(JSON.parse(stored?.properties as string)).toEqual({ plan: 'pro', nested: [[1, 2], { '': 'odd key' }] });
    expect(stored?.fingerprint).toMatch(/^[0-9a-f]{32}$/);
  });

  it('gives events without an eventId a server id each', async () => {
    const res = await postEvents(service, project, { events: [event({ name: 'no_id_a' }), event({ name: 'no_id_b' })] });
    expect(res.body.received).toBe(2);
    const stored = (await storedEvents(service, project.projectId)).filter((e) => e.name.startsWith('no_id_'));
    expect(stored).toHaveLength(2);
    for (const e of stored) {
      expect(e.eventIdSource).toBe('server');
      expect(e.eventId).toMatch(/^srv_evt_[A-Za-z0-9]{24}$/);
    }
  });

  it('soft-drops malformed level, tags and categoryTags, records which, and still answers 202', async () => {
    const res = await postEvents(service, project, {
      events: [event({ eventId: 'soft-1', level: 'catastrophic', tags: { v: 'x'.repeat(65) }, categoryTags: Array.from({ length: 17 }, () => 'c') })],
    });
    expect(res.status).toBe(202);
    expect(res.body.received).toBe(1);
    expect(await storedEvent(service, project.projectId, 'soft-1')).toMatchObject({ level: null, tags: null, categoryTags: null, softDropped: ['level', 'tags', 'categoryTags'], fingerprint: null });
  });
});

describe('rejecting a batch (all or nothing)', () => {
  it('rejects the whole batch for one invalid event, naming its index and field, and lands nothing', async () => {
    const res = await postEvents(service, project, { events: [...events(3, 'reject-all'), event({ eventId: 'reject-all-x', name: 'n'.repeat(129) })] });
    expectError(res, 400, 'invalid_request_error', 'invalid_param_value');
    expect(res.body.error.message).toContain('`events[3].name`');
    expect(await storedEvent(service, project.projectId, 'reject-all-0')).toBeNull();
  });

  it.each([
    ['an empty batch', { events: [] }, '`events`'],
    ['101 events', { events: events(101, 'too-many') }, '`events`'],
    ['a missing identity hint', { events: [event(), { name: 'orphan' }] }, '`events[1].developerUserId`'],
    ['oversized properties', { events: [event({ properties: { big: 'x'.repeat(9000) } })] }, '`events[0].properties`'],
    ['a string timestamp', { events: [event({ timestamp: 'yesterday' as unknown as number })] }, '`events[0].timestamp`'],
    ['a long eventId', { events: [event({ eventId: 'e'.repeat(65) })] }, '`events[0].eventId`'],
  ])('rejects %s with 400 invalid_param_value', async (_label, body, field) => {
    const res = await postEvents(service, project, body);
    expectError(res, 400, 'invalid_request_error', 'invalid_param_value');
    expect(res.body.error.message).toContain(field);
  });

  it('rejects a body over about 1 MB with 400 naming the limit, never a crash', async () => {
    const huge = { events: [event({ properties: { blob: 'x'.repeat(1024 * 1024) } })] };
    const res = await postEvents(service, project, huge);
    expectError(res, 400, 'invalid_request_error', 'invalid_param_value');
    expect(res.body.error.message).toContain('1048576 bytes');
  });

  it('rejects an envelope environment other than the key’s with 403 env_mismatch, landing nothing', async () => {
    const res = await postEvents(service, project, { environment: 'production', events: [event({ eventId: 'env-mismatch' })] });
    expectError(res, 403, 'permission_error', 'env_mismatch');
    const live = await postEvents(service, project, { environment: 'sandbox', events: [event({ eventId: 'env-mismatch' })] }, { env: 'live' });
    expectError(live, 403, 'permission_error', 'env_mismatch');
    expect(await storedEvent(service, project.projectId, 'env-mismatch')).toBeNull();
    expect(await storedEvent(service, project.projectId, 'env-mismatch', 'live')).toBeNull();
  });

  it('rejects an envelope appId that is not the key’s app with 400', async () => {
    const res = await postEvents(service, project, { appId: project.web.appId, events: [event({ eventId: 'wrong-app' })] });
    expectError(res, 400, 'invalid_request_error', 'invalid_param_value');
    expect(res.body.error.message).toContain('`appId`');
    expect(await storedEvent(service, project.projectId, 'wrong-app')).toBeNull();
  });
});

describe('de-duplication and retries', () => {
  it('lands a batch retried three times once, answering the same truthful received each time', async () => {
    const own = await seedProject(service);
    const batch = { events: events(5, 'retry') };
    for (let attempt = 0; attempt < 4; attempt += 1) {
      const res = await postEvents(service, own, batch);
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ object: 'list', received: 5, env: 'sandbox' });
    }
    const stored = await storedEvents(service, own.projectId);
    expect(stored.map((e) => e.eventId).sort()).toEqual(['retry-0', 'retry-1', 'retry-2', 'retry-3', 'retry-4']);
  });

  it('counts an event id repeated inside one batch once (the later copy wins)', async () => {
    const res = await postEvents(service, project, { events: [event({ eventId: 'twice', name: 'first' }), event({ eventId: 'twice', name: 'second' })] });
    expect(res.body.received).toBe(1);
    expect((await storedEvent(service, project.projectId, 'twice'))?.name).toBe('second');
  });

  it('a re-sent event id replaces its record wholesale, maps included (no stale keys)', async () => {
    await postEvents(service, project, { events: [event({ eventId: 'replace-me', tags: { a: '1', b: '2' }, properties: { x: 1 } })] });
    await postEvents(service, project, { events: [event({ eventId: 'replace-me', tags: { c: '3' }, developerUserId: 'user-r' })] });
    const stored = await storedEvent(service, project.projectId, 'replace-me');
    expect(stored?.tags).toEqual({ c: '3' });
    expect(stored?.properties).toBeNull();
    expect(stored?.hints).toEqual({ developerUserId: 'user-r', anonymousId: 'device-1', serviceCustomerId: null });
  });

  it('keeps the resolved customer when a batch is retried after resolution', async () => {
    const own = await seedProject(service);
    const batch = { events: [event({ eventId: 'resolved-retry', anonymousId: 'device-retry' })] };
    await postEvents(service, own, batch);
    await service.tasks.drain();
    const resolved = await storedEvent(service, own.projectId, 'resolved-retry');
    expect(resolved?.serviceCustomerId).toMatch(/^cdcust_/);
    await postEvents(service, own, batch);
    await service.tasks.drain();
    expect((await storedEvent(service, own.projectId, 'resolved-retry'))?.serviceCustomerId).toBe(resolved?.serviceCustomerId);
  });
});

describe('retention', () => {
  it('stamps expiresAt from the deployment default, or from the project’s own setting', async () => {
    const own = await seedProject(service);
    const now = service.clock.now();
    await postEvents(service, own, { events: [event({ eventId: 'ttl-default' })] });
    const byDefault = await storedEvent(service, own.projectId, 'ttl-default');
    expect(byDefault?.expiresAt.toMillis()).toBe(now + service.deps.settings.telemetryRetentionDays * DAY);

    await projectRef(service.deps.db, own.projectId).update({ telemetryRetentionDays: 7 });
    await postEvents(service, own, { events: [event({ eventId: 'ttl-project' })] });
    expect((await storedEvent(service, own.projectId, 'ttl-project'))?.expiresAt.toMillis()).toBe(now + 7 * DAY);
  });
});

describe('the 426 switch', () => {
  const oldSdk = { 'Service-Sdk-Version': 'TesseraSwift@1.0.0' };

  it('is off by default: an SDK below the floor still lands', async () => {
    expect(service.deps.settings.enforceSdkFloor).toBe(false);
    const res = await postEvents(service, project, { events: [event({ eventId: 'old-sdk-off' })] }, { headers: oldSdk });
    expect(res.status).toBe(202);
    expect(await storedEvent(service, project.projectId, 'old-sdk-off')).not.toBeNull();
  });

  it('when on, answers 426 with minVersion and surface and lands nothing; current SDKs land', async () => {
    const strict = createTestService({ settings: { enforceSdkFloor: true } });
    const own = await seedProject(strict);
    const res = await postEvents(strict, own, { events: [event({ eventId: 'old-sdk-on' })] }, { headers: oldSdk });
    expectError(res, 426, 'version_error', 'sdk_version_unsupported');
    expect(res.body.error).toMatchObject({ minVersion: '1.6.0', surface: 'swift' });
    expect(await storedEvent(strict, own.projectId, 'old-sdk-on')).toBeNull();

    const fromEnvelope = await postEvents(strict, own, { sdk: { name: '@tessera/web', version: '1.2.0' }, events: [event({ eventId: 'old-envelope' })] });
    expectError(fromEnvelope, 426, 'version_error', 'sdk_version_unsupported');
    expect(fromEnvelope.body.error).toMatchObject({ minVersion: '2.0.0', surface: 'web' });

    const current = await postEvents(strict, own, { events: [event({ eventId: 'new-sdk-on' })] }, { headers: { 'Service-Sdk-Version': 'TesseraSwift@1.9.0' } });
    expect(current.status).toBe(202);
    await strict.tasks.drain();
  });
});

describe('environment isolation of stored events', () => {
  it('keeps the same event id in test and live as two records, each readable only in its partition', async () => {
    const own = await seedProject(service);
    await postEvents(service, own, { events: [event({ eventId: 'both-envs', name: 'test_side' })] });
    await postEvents(service, own, { events: [event({ eventId: 'both-envs', name: 'live_side' })] }, { env: 'live' });
    await service.tasks.drain();
    const test = await storedEvent(service, own.projectId, 'both-envs', 'test');
    const live = await storedEvent(service, own.projectId, 'both-envs', 'live');
    expect(test).toMatchObject({ name: 'test_side', env: 'sandbox' });
    expect(live).toMatchObject({ name: 'live_side', env: 'production' });
    expect(test?.serviceCustomerId).toMatch(/^cdcust_/);
    expect(live?.serviceCustomerId).toMatch(/^cdcust_/);
    expect(test?.serviceCustomerId).not.toBe(live?.serviceCustomerId);
    const liveCustomers = await service.deps.db.collection(`projects/${own.projectId}/envs/live/customers`).get();
    expect(liveCustomers.docs.map((d) => d.id)).toEqual([live?.serviceCustomerId]);
  });

  it('never lands in another project', async () => {
    const other = await seedProject(service);
    await postEvents(service, project, { events: [event({ eventId: 'mine-only' })] });
    expect(await storedEvent(service, other.projectId, 'mine-only')).toBeNull();
  });
});
