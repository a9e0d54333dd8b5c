/**
 * How events are stored (events/storedEventCodec.ts): the fields queries use stay fields (and
 * indexed), everything else is one packed JSON value (exempt from indexing). Every field reads
 * back; documents stored before packing read the same; an unattributed retry keeps the customer
 * whichever shape it lands on; the dashboard shows both shapes; erasure reaches packed events;
 * another project's key never reaches them.
 */
import { Timestamp } from 'firebase-admin/firestore';
import { DAY } from '../../functions/src/clock';
import { eventDocId, EVENTS, type StoredEvent } from '../../functions/src/events/model';
import { packStoredEvent, storedEventConverter, unpackStoredEvent } from '../../functions/src/events/storedEventCodec';
import { EnvScope } from '../../functions/src/store/scope';
import { createTestService, seedProject, type SeededProject, type TestService } from '../support/harness';
import { indexEntries, leafFields, readIndexConfig } from '../support/indexEntries';
import { enableLocalLogin } from '../support/localSignIn';
import { event, postEvents, storedEvent } from './support';

let service: TestService;
let project: SeededProject;
let scope: EnvScope;

beforeAll(async () => {
  service = createTestService();
  project = await seedProject(service);
  scope = new EnvScope(service.deps.db, project.projectId, 'test');
});
afterAll(() => service.tasks.drain());

const rawEvent = async (eventId: string, target: SeededProject = project) =>
  (await service.deps.db.doc(`projects/${target.projectId}/envs/test/${EVENTS}/${eventDocId(eventId)}`).get()).data();

/** An event as the earlier code stored it: every field a field. */
const legacyEvent = (overrides: Partial<StoredEvent> = {}): StoredEvent => ({
  eventId: 'legacy',
  eventIdSource: 'client',
  name: 'legacy_open',
  timestamp: service.clock.now() - 1_000,
  clientTimestamp: null,
  properties: '{"from":"before"}',
  level: 'warning',
  tags: { a: '1' },
  categoryTags: ['old'],
  softDropped: ['level'],
  fingerprint: null,
  hints: { developerUserId: null, anonymousId: 'legacy-device', serviceCustomerId: null },
  throttlePass: false,
  receivedAt: service.clock.now() - 1_000,
  env: 'sandbox',
  appId: project.ios.appId,
  platform: 'ios',
  sdk: { name: '@tessera/swift', version: '1.8.0' },
  sdkHeader: null,
  envelopeVersion: 1,
  requestId: 'req_legacy',
  expiresAt: Timestamp.fromMillis(service.clock.now() + 90 * DAY),
  ...overrides,
});

describe('the stored shape', () => {
  it('stores an event as its queried fields plus one packed value, and reads every field back', async () => {
    const now = service.clock.now();
    const res = await postEvents(
      service,
      project,
      {
        events: [
          event({ eventId: 'shape-1', name: 'checkout_failed', timestamp: now - 2 * DAY, developerUserId: 'shape-user', anonymousId: 'shape-device', level: 'error', tags: { screen: 'pay', release: '3.0.0' }, categoryTags: ['billing', 'card'], properties: { message: 'card declined', 'quote"d': [1, { x: null }] } }),
          event({ eventId: 'shape-2', anonymousId: 'shape-device', level: 'loud', tags: 'not a map' }),
        ],
        sdk: { name: '@tessera/swift', version: '1.9.0' },
        envelopeVersion: 2,
      },
      { headers: { 'Service-Sdk-Version': 'TesseraSwift@1.9.0' } },
    );
    expect(res.status).toBe(202);
    const first = await storedEvent(service, project.projectId, 'shape-1');
    const raw = await rawEvent('shape-1');
    expect(Object.keys(raw!).sort()).toEqual(['expiresAt', 'hints', 'packed', 'resolvedAt', 'serviceCustomerId', 'timestamp']);
    expect(typeof raw!.packed).toBe('string');
    expect(raw!.hints).toEqual({ developerUserId: 'shape-user', anonymousId: 'shape-device' }); // no null stored
    expect(first).toEqual({
      eventId: 'shape-1',
      eventIdSource: 'client',
      name: 'checkout_failed',
      timestamp: now,
      clientTimestamp: now - 2 * DAY,
      properties: JSON.stringify({ message: 'card declined', 'quote"d': [1, { x: null }] }),
      level: 'error',
      tags: { screen: 'pay', release: '3.0.0' },
      categoryTags: ['billing', 'card'],
      softDropped: [],
      fingerprint: expect.stringMatching(/^[0-9a-f]{32}$/),
      hints: { developerUserId: 'shape-user', anonymousId: 'shape-device', serviceCustomerId: null },
      throttlePass: false,
      receivedAt: now,
      env: 'sandbox',
      appId: project.ios.appId,
      platform: 'ios',
      sdk: { name: '@tessera/swift', version: '1.9.0' },
      sdkHeader: 'TesseraSwift@1.9.0',
      envelopeVersion: 2,
      requestId: res.headers['x-request-id'],
      expiresAt: Timestamp.fromMillis(now + service.deps.settings.telemetryRetentionDays * DAY),
      serviceCustomerId: expect.stringMatching(/^cdcust_/),
      resolvedAt: now,
    });
    expect(await storedEvent(service, project.projectId, 'shape-2')).toMatchObject({ level: null, tags: null, softDropped: ['level', 'tags'], fingerprint: null, serviceCustomerId: first?.serviceCustomerId });
  });

  it('reads an event stored before packing exactly as a packed one, through the same converter', async () => {
    const before = legacyEvent({ eventId: 'legacy-read', serviceCustomerId: 'cdcust_legacyreader0000000001', resolvedAt: 5 });
    const events = scope.collection(EVENTS);
    await events.doc('e_legacy_read').set(before);
    await events.doc('e_packed_read').withConverter(storedEventConverter).set(before);
    expect((await events.doc('e_packed_read').get()).get('packed')).toEqual(expect.any(String));
    expect((await events.doc('e_legacy_read').withConverter(storedEventConverter).get()).data()).toEqual(before);
    expect((await events.doc('e_packed_read').withConverter(storedEventConverter).get()).data()).toEqual(before);
    // Unattributed: no resolution fields at all, in either direction.
    const { serviceCustomerId: _s, resolvedAt: _r, ...unattributed } = before;
    expect(Object.keys(packStoredEvent(unattributed, null)).sort()).toEqual(['expiresAt', 'hints', 'packed', 'timestamp']);
    expect(unpackStoredEvent(packStoredEvent(unattributed, null))).toEqual(unattributed);
  });

  it('refuses a packed value that is not a JSON object, naming no content', () => {
    const base = packStoredEvent(legacyEvent(), null);
    expect(() => unpackStoredEvent({ ...base, packed: '{"secret": ' })).toThrow('stored event: packed fields are not JSON');
    expect(() => unpackStoredEvent({ ...base, packed: '["secret"]' })).toThrow('stored event: packed fields are not an object');
  });
});

describe('retries over either shape', () => {
  it('an unattributed retry over an event stored before packing keeps its customer and shows the retry’s fields', async () => {
    const own = await seedProject(service);
    const ownScope = new EnvScope(service.deps.db, own.projectId, 'test');
    const customerId = 'cdcust_keptcustomer0000000001';
    await ownScope.doc(EVENTS, eventDocId('retry-legacy')).set(legacyEvent({ eventId: 'retry-legacy', appId: own.ios.appId, serviceCustomerId: customerId, resolvedAt: 7 }));
    // Only a claim naming no active customer: the task cannot attribute it and merges the request's fields.
    const res = await postEvents(service, own, { events: [{ eventId: 'retry-legacy', name: 'retried', serviceCustomerId: 'cdcust_nobody0000000000000001', tags: { b: '2' } }] });
    expect(res.status).toBe(202);
    const stored = await storedEvent(service, own.projectId, 'retry-legacy');
    expect(stored).toMatchObject({ name: 'retried', tags: { b: '2' }, properties: null, level: null, categoryTags: null, softDropped: [], serviceCustomerId: customerId, resolvedAt: 7 });
    expect(stored?.hints).toEqual({ developerUserId: null, anonymousId: null, serviceCustomerId: 'cdcust_nobody0000000000000001' });
  });

  it('an unattributed retry over a packed event keeps its customer; the landing is counted once', async () => {
    const own = await seedProject(service);
    await postEvents(service, own, { events: [event({ eventId: 'retry-packed', name: 'first', anonymousId: 'retry-device' })] });
    const first = await storedEvent(service, own.projectId, 'retry-packed');
    expect(first?.serviceCustomerId).toMatch(/^cdcust_/);
    await postEvents(service, own, { events: [{ eventId: 'retry-packed', name: 'first', serviceCustomerId: 'cdcust_nobody0000000000000002' }] });
    const again = await storedEvent(service, own.projectId, 'retry-packed');
    expect(again).toMatchObject({ name: 'first', serviceCustomerId: first?.serviceCustomerId, resolvedAt: first?.resolvedAt });
    expect(Object.keys((await rawEvent('retry-packed', own))!).sort()).toEqual(['expiresAt', 'hints', 'packed', 'resolvedAt', 'serviceCustomerId', 'timestamp']);
    const rollups = await service.deps.db.collection(`projects/${own.projectId}/envs/test/reportEvents`).get();
    expect(countedEvents(rollups.docs.map((doc) => doc.data()))).toBe(1);
  });
});

/** Events counted by the day documents of the event rollups (`events: {series: {hour: n}}`). */
function countedEvents(docs: Record<string, unknown>[]): number {
  const sum = (value: unknown): number => (typeof value === 'number' ? value : value !== null && typeof value === 'object' ? Object.values(value).reduce<number>((a, v) => a + sum(v), 0) : 0);
  return docs.reduce<number>((total, doc) => total + sum(doc.events), 0);
}

describe('readers and erasure', () => {
  it('the dashboard shows a customer’s packed and earlier-shape events together, newest first, every shown field', async () => {
    const own = await seedProject(service);
    const ownScope = new EnvScope(service.deps.db, own.projectId, 'test');
    const loginToken = enableLocalLogin(service.deps.operators);
    const session = { Authorization: `Bearer ${(await service.request().post('/v1/dashboard-api/session/local').send({ loginToken })).body.data.sessionToken}` };
    const now = service.clock.now();
    await postEvents(service, own, { events: [event({ eventId: 'dash-new', name: 'opened', developerUserId: 'dash-user', timestamp: now - 1_000, level: 'info' })] });
    const customerId = (await storedEvent(service, own.projectId, 'dash-new'))!.serviceCustomerId!;
    await ownScope.doc(EVENTS, eventDocId('dash-old')).set(legacyEvent({ eventId: 'dash-old', name: 'legacy_open', timestamp: now - 2_000, appId: own.ios.appId, serviceCustomerId: customerId, resolvedAt: 1 }));
    await ownScope.doc(EVENTS, eventDocId('dash-newest')).set(legacyEvent({ eventId: 'dash-newest', name: 'legacy_last', timestamp: now - 500, level: null, appId: own.web.appId, platform: 'web', serviceCustomerId: customerId, resolvedAt: 1 }));

    const detail = await service.request().get(`/v1/dashboard-api/projects/${own.projectId}/test/customers/${customerId}`).set(session);
    expect(detail.status).toBe(200);
    expect(detail.body.data.recentEvents).toEqual([
      { eventId: 'dash-newest', name: 'legacy_last', level: null, timestamp: now - 500, appId: own.web.appId, platform: 'web' },
      { eventId: 'dash-new', name: 'opened', level: 'info', timestamp: now - 1_000, appId: own.ios.appId, platform: 'ios' },
      { eventId: 'dash-old', name: 'legacy_open', level: 'warning', timestamp: now - 2_000, appId: own.ios.appId, platform: 'ios' },
    ]);
  });

  it('erasure removes the customer’s packed events, by customer and by identifier, and nobody else’s', async () => {
    const own = await seedProject(service);
    const ownScope = new EnvScope(service.deps.db, own.projectId, 'test');
    await postEvents(service, own, {
      events: [
        event({ eventId: 'erase-1', developerUserId: 'erase-user', anonymousId: 'erase-phone' }),
        event({ eventId: 'erase-2', anonymousId: 'erase-phone' }),
        event({ eventId: 'keep-1', anonymousId: 'keep-phone' }),
      ],
    });
    await service.tasks.drain();
    // Packed, unattributed, carrying the erased device: found by `hints.anonymousId` only.
    const { serviceCustomerId: _s, resolvedAt: _r, ...unattributed } = legacyEvent({ eventId: 'erase-3', appId: own.ios.appId, hints: { developerUserId: null, anonymousId: 'erase-phone', serviceCustomerId: null } });
    await ownScope.doc(EVENTS, eventDocId('erase-3')).withConverter(storedEventConverter).set(unattributed);
    expect(typeof (await rawEvent('erase-3', own))?.packed).toBe('string');

    const forgot = await service.request().post('/v1/identity/forget').set('Service-Api-Key', own.ios.test.secret).send({ userId: 'erase-user' });
    expect(forgot.status).toBe(200);
    await service.tasks.drain();
    for (const erased of ['erase-1', 'erase-2', 'erase-3']) expect(await rawEvent(erased, own)).toBeUndefined();
    expect(await storedEvent(service, own.projectId, 'keep-1')).toMatchObject({ eventId: 'keep-1', hints: { anonymousId: 'keep-phone' } });
  });

  it('another project’s key lands the same event id in its own partition only, and cannot read events', async () => {
    const other = await seedProject(service);
    await postEvents(service, project, { events: [event({ eventId: 'owned-event', name: 'mine' })] });
    const mine = await storedEvent(service, project.projectId, 'owned-event');
    const res = await postEvents(service, other, { events: [event({ eventId: 'owned-event', name: 'hijack', serviceCustomerId: mine!.serviceCustomerId! })] });
    expect(res.status).toBe(202);
    expect(await storedEvent(service, project.projectId, 'owned-event')).toEqual(mine);
    const theirs = await storedEvent(service, other.projectId, 'owned-event');
    expect(theirs).toMatchObject({ name: 'hijack', appId: other.ios.appId });
    expect(theirs?.serviceCustomerId).not.toBe(mine?.serviceCustomerId);
    const read = await service.request().get(`/v1/dashboard-api/projects/${project.projectId}/test/customers/${mine!.serviceCustomerId}/events`).set('Authorization', `Bearer ${other.ios.test.secret}`);
    expect(read.status).toBe(401);
    expect(JSON.stringify(read.body)).not.toContain('owned-event');
  });
});

describe('indexing (firestore.indexes.json)', () => {
  /** What queries filter or order events on: erasure (retention/erasure.ts) and the customer history (dashboard/customerHistory.ts). */
  const QUERIED = ['serviceCustomerId', 'hints.developerUserId', 'hints.anonymousId'];

  it('indexes exactly the queried fields of a stored event (3–4 entries when attributed), exempting the rest', async () => {
    const config = readIndexConfig();
    const overrides = new Map(config.fieldOverrides.filter((o) => o.collectionGroup === 'events').map((o) => [o.fieldPath, o]));
    await postEvents(service, project, { events: [event({ eventId: 'indexed-1', developerUserId: 'index-user', level: 'error', tags: { a: '1', b: '2' }, categoryTags: ['x', 'y'], properties: { message: 'boom' } })] });
    await storedEvent(service, project.projectId, 'indexed-1');
    const raw = (await rawEvent('indexed-1'))!;
    for (const [path] of leafFields(raw)) {
      const override = overrides.get(path);
      expect([path, override === undefined ? 'automatic indexes' : 'overridden']).toEqual([path, 'overridden']);
      if (QUERIED.includes(path)) expect(override!.indexes).toEqual([{ order: 'ASCENDING', queryScope: 'COLLECTION' }]);
      else expect([path, override!.indexes]).toEqual([path, []]);
    }
    expect(overrides.get('expiresAt')?.ttl).toBe(true);
    // The customer history: serviceCustomerId equal, newest first.
    expect(config.indexes).toContainEqual({ collectionGroup: 'events', queryScope: 'COLLECTION', fields: [{ fieldPath: 'serviceCustomerId', order: 'ASCENDING' }, { fieldPath: 'timestamp', order: 'DESCENDING' }] });
    expect(indexEntries(raw, config, 'events')).toBe(4);
    // The bench's shape: a device id only (no null developer id stored, so no entry for it).
    await postEvents(service, project, { events: [event({ eventId: 'indexed-2', anonymousId: 'index-device' })] });
    await storedEvent(service, project.projectId, 'indexed-2');
    expect(indexEntries((await rawEvent('indexed-2'))!, config, 'events')).toBe(3);
  });
});
