/**
 * Guarantees of the pure event rules: each field's validation and soft-drop, the timestamp
 * clamp, server ids, in-batch duplicates, the error fingerprint (pinned: stored data depends on
 * it staying stable), the throttle plan, the version floor, the resolution task's identity and the batch codec.
 */
import { DAY, MINUTE } from '../../functions/src/clock';
import { errorFingerprint, normaliseMessage } from '../../functions/src/events/fingerprint';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { Timestamp } from 'firebase-admin/firestore';
import { decodeBatchEvents, encodeBatchEvents, packBatchEvents } from '../../functions/src/events/batchCodec';
import { BATCH_DOC_ID_PATTERN, batchDocId, eventDocId, type BatchedEvent } from '../../functions/src/events/model';
import { identityResolutionTask, MAX_BATCHES_PER_TASK, parseIdentityResolutionPayload } from '../../functions/src/events/resolutionTask';
import { sdkFloorViolation } from '../../functions/src/events/sdkFloor';
import { ErrorPassMemory, minuteOf, planThrottle } from '../../functions/src/events/throttle';
import { eventsBodySchema, type EventsBody } from '../../functions/src/wire/events';
import { normaliseBatch as normaliseValidBatch, normaliseEvent as normaliseValidEvent } from '../../functions/src/events/validation';
import { ApiError } from '../../functions/src/http/errors';
import { compileSchema } from '../../functions/src/http/validation';

const NOW = Date.UTC(2026, 2, 1, 12, 0, 0);

function rejection(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('invalid_param_value');
    return (err as ApiError).message;
  }
  throw new Error('expected a 400 invalid_param_value');
}

const valid = { name: 'purchase', anonymousId: 'device-1' };

/** As a request goes: the route's schema (in the pipeline), then the service's normalisation. */
const validateBody = compileSchema<EventsBody>(eventsBodySchema);
const normaliseBatch = (body: unknown, now: number) => normaliseValidBatch(validateBody(body), now);
/** One event, validated at position `index` of a batch (valid events before it). */
const normaliseEvent = (raw: unknown, index: number, now: number) =>
  normaliseValidEvent(validateBody({ events: [...Array.from({ length: index }, () => valid), raw] }).events[index], now);

describe('event validation (request table)', () => {
  it.each([
    ['name missing', { anonymousId: 'a' }, 'events[2].name'],
    ['name empty', { ...valid, name: '' }, 'events[2].name'],
    ['name over 128', { ...valid, name: 'n'.repeat(129) }, 'events[2].name'],
    ['name not a string', { ...valid, name: 7 }, 'events[2].name'],
    ['eventId empty', { ...valid, eventId: '' }, 'events[2].eventId'],
    ['eventId over 64', { ...valid, eventId: 'e'.repeat(65) }, 'events[2].eventId'],
    ['timestamp not an integer', { ...valid, timestamp: 1.5 }, 'events[2].timestamp'],
    ['timestamp a string', { ...valid, timestamp: '1700000000000' }, 'events[2].timestamp'],
    ['properties an array', { ...valid, properties: [1] }, 'events[2].properties'],
    ['properties over 8 KB', { ...valid, properties: { blob: 'x'.repeat(8200) } }, 'events[2].properties'],
    ['no identity hint', { name: 'purchase' }, 'events[2].developerUserId'],
    ['developerUserId malformed', { ...valid, developerUserId: 'has space' }, 'events[2].developerUserId'],
    ['developerUserId over 256', { ...valid, developerUserId: 'u'.repeat(257) }, 'events[2].developerUserId'],
    ['anonymousId malformed', { name: 'x', anonymousId: 'dev.ice' }, 'events[2].anonymousId'],
    ['anonymousId over 128', { name: 'x', anonymousId: 'a'.repeat(129) }, 'events[2].anonymousId'],
    ['serviceCustomerId without prefix', { name: 'x', serviceCustomerId: 'cust_123' }, 'events[2].serviceCustomerId'],
  ])('rejects %s, naming the index and field', (_label, bad, field) => {
    const message = rejection(() => normaliseBatch({ events: [valid, valid, bad, { name: '' }] }, NOW));
    expect(message).toContain(`\`${field}\``);
  });

  it('names the first failing event, not a later one with a structural error', () => {
    const message = rejection(() => normaliseBatch({ events: [valid, { name: 'no-hint' }, { ...valid, name: '' }] }, NOW));
    expect(message).toContain('events[1]');
  });

  it('accepts exactly 8 KB of serialised properties', () => {
    const filler = 'x'.repeat(8 * 1024 - JSON.stringify({ b: '' }).length);
    expect(normaliseEvent({ ...valid, properties: { b: filler } }, 0, NOW).properties).toHaveLength(8192);
  });

  it('rejects 0 and 101 events, and a missing events array', () => {
    expect(rejection(() => normaliseBatch({ events: [] }, NOW))).toContain('`events`');
    expect(rejection(() => normaliseBatch({ events: Array.from({ length: 101 }, () => valid) }, NOW))).toContain('`events`');
    expect(rejection(() => normaliseBatch({}, NOW))).toContain('`events`');
    expect(rejection(() => normaliseBatch({ events: [valid, 'text'] }, NOW))).toContain('`events[1]`');
  });

  it('accepts each identity hint alone, and several together; null counts as absent', () => {
    expect(normaliseEvent({ name: 'x', developerUserId: 'user@example.com' }, 0, NOW).hints.developerUserId).toBe('user@example.com');
    expect(normaliseEvent({ name: 'x', serviceCustomerId: 'cdcust_abc' }, 0, NOW).hints.serviceCustomerId).toBe('cdcust_abc');
    const all = normaliseEvent({ name: 'x', developerUserId: 'u1', anonymousId: 'a1', serviceCustomerId: 'cdcust_z', timestamp: null, eventId: null }, 0, NOW);
    expect(all.hints).toEqual({ developerUserId: 'u1', anonymousId: 'a1', serviceCustomerId: 'cdcust_z' });
    expect(all.eventIdSource).toBe('server');
    expect(rejection(() => normaliseEvent({ name: 'x', anonymousId: null }, 4, NOW))).toContain('events[4]');
  });

  it('checks the envelope: environment values and appId type', () => {
    expect(rejection(() => normaliseBatch({ events: [valid], environment: 'staging' }, NOW))).toContain('`environment`');
    expect(rejection(() => normaliseBatch({ events: [valid], appId: 5 }, NOW))).toContain('`appId`');
  });

  it('observes sdk and envelopeVersion without enforcing them', () => {
    const observed = normaliseBatch({ events: [valid], sdk: { name: '@tessera/web', version: '2.4.0' }, envelopeVersion: 3 }, NOW);
    expect(observed.sdk).toEqual({ name: '@tessera/web', version: '2.4.0' });
    expect(observed.envelopeVersion).toBe(3);
    const ignored = normaliseBatch({ events: [valid], sdk: 'web', envelopeVersion: 'two' }, NOW);
    expect(ignored.sdk).toBeNull();
    expect(ignored.envelopeVersion).toBeNull();
  });
});

describe('soft-drops (rule 2)', () => {
  it('keeps a valid level, tags and categoryTags', () => {
    const event = normaliseEvent({ ...valid, level: 'warning', tags: { release: '1.2.3', screen: 'checkout' }, categoryTags: ['payments', 'ios'] }, 0, NOW);
    expect(event.level).toBe('warning');
    expect(event.tags).toEqual({ release: '1.2.3', screen: 'checkout' });
    expect(event.categoryTags).toEqual(['payments', 'ios']);
    expect(event.softDropped).toEqual([]);
  });

  it.each([
    ['level', { level: 'fatal' }],
    ['level', { level: 3 }],
    ['tags', { tags: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, 'v'])) }],
    ['tags', { tags: { release: 'v'.repeat(65) } }],
    ['tags', { tags: { count: 3 } }],
    ['tags', { tags: ['a'] }],
    ['tags', { tags: { '': 'empty key' } }],
    ['categoryTags', { categoryTags: Array.from({ length: 17 }, (_, i) => `c${i}`) }],
    ['categoryTags', { categoryTags: ['c'.repeat(33)] }],
    ['categoryTags', { categoryTags: 'payments' }],
  ])('drops a malformed %s and keeps the event', (field, extra) => {
    const event = normaliseEvent({ ...valid, ...extra }, 0, NOW);
    expect(event.softDropped).toEqual([field]);
    expect(event[field as 'level' | 'tags' | 'categoryTags']).toBeNull();
    expect(event.name).toBe('purchase');
  });

  it('accepts the limits exactly: 32 tags of 64 chars, 16 category tags of 32 chars', () => {
    const tags = Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`k${i}`, 'v'.repeat(64)]));
    const categoryTags = Array.from({ length: 16 }, () => 'c'.repeat(32));
    const event = normaliseEvent({ ...valid, tags, categoryTags }, 0, NOW);
    expect(event.softDropped).toEqual([]);
    expect(Object.keys(event.tags ?? {})).toHaveLength(32);
    expect(event.categoryTags).toHaveLength(16);
  });

  it('a soft-dropped level makes the event an ordinary one (no fingerprint)', () => {
    expect(normaliseEvent({ ...valid, level: 'ERROR' }, 0, NOW).fingerprint).toBeNull();
    expect(normaliseEvent({ ...valid, level: 'error' }, 0, NOW).fingerprint).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('timestamps, ids and duplicates', () => {
  it('keeps a timestamp within ±24 h and clamps one beyond to the receive time', () => {
    expect(normaliseEvent({ ...valid, timestamp: NOW - DAY }, 0, NOW)).toMatchObject({ timestamp: NOW - DAY, clientTimestamp: null });
    expect(normaliseEvent({ ...valid, timestamp: NOW + DAY }, 0, NOW)).toMatchObject({ timestamp: NOW + DAY, clientTimestamp: null });
    expect(normaliseEvent({ ...valid, timestamp: NOW - DAY - 1 }, 0, NOW)).toMatchObject({ timestamp: NOW, clientTimestamp: NOW - DAY - 1 });
    expect(normaliseEvent({ ...valid, timestamp: NOW + DAY + 1 }, 0, NOW)).toMatchObject({ timestamp: NOW, clientTimestamp: NOW + DAY + 1 });
    expect(normaliseEvent(valid, 0, NOW).timestamp).toBe(NOW);
  });

  it('derives the document id from the event id; server ids are unique', () => {
    const a = normaliseEvent({ ...valid, eventId: 'a/b.c' }, 0, NOW);
    expect(a).toMatchObject({ eventId: 'a/b.c', eventIdSource: 'client' });
    expect(eventDocId(a.eventId)).toMatch(/^e_[0-9a-f]{40}$/);
    const s1 = normaliseEvent(valid, 0, NOW);
    const s2 = normaliseEvent(valid, 1, NOW);
    expect(s1.eventId).toMatch(/^srv_evt_/);
    expect(s1.eventIdSource).toBe('server');
    expect(eventDocId(s1.eventId)).not.toBe(eventDocId(s2.eventId));
  });

  it('normalises each event straight into the shape of the batch payload (nothing beside it to strip)', () => {
    const event = normaliseEvent({ ...valid, eventId: 'shape', level: 'error', properties: { message: 'boom' }, extra: 'ignored' }, 0, NOW);
    expect(Object.keys(event).sort()).toEqual(
      ['categoryTags', 'clientTimestamp', 'eventId', 'eventIdSource', 'fingerprint', 'hints', 'level', 'name', 'properties', 'softDropped', 'tags', 'throttlePass', 'timestamp'],
    );
    expect(event.throttlePass).toBe(false);
    expect(decodeBatchEvents(encodeBatchEvents([event]))).toEqual([event]);
  });

  it('collapses two events of one batch with the same event id to the later copy', () => {
    const batch = normaliseBatch({ events: [{ ...valid, eventId: 'dup', name: 'first' }, { ...valid, eventId: 'other' }, { ...valid, eventId: 'dup', name: 'second' }] }, NOW);
    expect(batch.events.map((e) => e.name)).toEqual(['purchase', 'second']);
  });
});

describe('error fingerprint (documented in events/README.md)', () => {
  it('is pinned: changing it would split every stored error group', () => {
    expect(errorFingerprint('checkout_failed', { errorType: 'TypeError', message: 'Cannot read properties of undefined (reading "id") at line 42' })).toBe(
      '85d1cb6097469543913722fc66517814',
    );
    expect(errorFingerprint('checkout_failed', null)).toBe('67cbe4fb3d0c36e747ef6e7b26ad9435');
    // Text beyond ASCII hashes as UTF-8 (pinned with the earlier createHash implementation).
    expect(errorFingerprint('paiement_échoué', { errorType: 'ZahlungsFehler', message: 'Käufer 😀 a annulé' })).toBe('39e00ebf9300a5d7994b4b0eec1adf88');
  });

  it('ignores variable parts of the message and the level, and separates names, types and messages', () => {
    const base = errorFingerprint('crash', { type: 'RangeError', message: 'index 5 out of range for order 9f1c2d3e4b' });
    expect(errorFingerprint('crash', { type: 'RangeError', message: 'index 17 out of range for order 0a0b0c0d11' })).toBe(base);
    expect(errorFingerprint('crash', { error: { type: 'RangeError', message: 'index 5  out of range for order 9f1c2d3e4b' } })).toBe(base);
    expect(errorFingerprint('crash2', { type: 'RangeError', message: 'index 5 out of range for order 9f1c2d3e4b' })).not.toBe(base);
    expect(errorFingerprint('crash', { type: 'TypeError', message: 'index 5 out of range for order 9f1c2d3e4b' })).not.toBe(base);
    expect(errorFingerprint('crash', { type: 'RangeError', message: 'key 5 out of range' })).not.toBe(base);
    expect(normaliseMessage('user 3f2b1c9d-0000-4000-8000-1234567890ab code 0x1f took 12ms')).toBe('user <uuid> code <hex> took <n>ms');
  });
});

describe('throttle plan', () => {
  const batch = normaliseBatch(
    {
      events: [
        { ...valid, eventId: 'a' },
        { ...valid, eventId: 'b', level: 'error', properties: { message: 'boom' } },
        { ...valid, eventId: 'c' },
        { ...valid, eventId: 'd', level: 'error', properties: { message: 'boom' } },
        { ...valid, eventId: 'e', level: 'info', properties: { message: 'other' } },
      ],
    },
    NOW,
  ).events;

  it('lands what the grant pays for, in request order, and offers one error event per fingerprint', () => {
    const plan = planThrottle(batch, 2, new ErrorPassMemory(), 'p/test', minuteOf(NOW));
    expect(plan.paid.map((e) => e.eventId)).toEqual(['a', 'b']);
    expect(plan.candidates.map((e) => e.eventId)).toEqual(['d', 'e']);
    expect(plan.dropped.map((e) => e.eventId)).toEqual(['c']);
  });

  it('drops an error whose fingerprint this instance saw pass in the same minute, and offers it again next minute', () => {
    const memory = new ErrorPassMemory();
    const minute = minuteOf(NOW);
    memory.remember('p/test', batch[3].fingerprint as string, minute);
    expect(planThrottle(batch, 0, memory, 'p/test', minute).candidates.map((e) => e.eventId)).toEqual(['e']);
    expect(planThrottle(batch, 0, memory, 'p/live', minute).candidates.map((e) => e.eventId)).toEqual(['b', 'e']);
    expect(planThrottle(batch, 0, memory, 'p/test', minuteOf(NOW + MINUTE)).candidates.map((e) => e.eventId)).toEqual(['b', 'e']);
  });
});

describe('version floor', () => {
  it('refuses a known surface below its floor and lets everything else through', () => {
    expect(sdkFloorViolation('@tessera/web@1.9.9', null)).toEqual({ surface: 'web', minVersion: '2.0.0', version: '1.9.9' });
    expect(sdkFloorViolation('TesseraSwift@1.5.0', null)).toEqual({ surface: 'swift', minVersion: '1.6.0', version: '1.5.0' });
    expect(sdkFloorViolation('@tessera/web@2.0.0', null)).toBeNull();
    expect(sdkFloorViolation('unknown-sdk@0.0.1', null)).toBeNull();
    expect(sdkFloorViolation('garbage', null)).toBeNull();
    expect(sdkFloorViolation(undefined, null)).toBeNull();
    expect(sdkFloorViolation(undefined, { name: '@tessera/node', version: '1.0.0' })).toEqual({ surface: 'node', minVersion: '2.0.0', version: '1.0.0' });
    expect(sdkFloorViolation('@tessera/node@2.1.0', { name: '@tessera/node', version: '1.0.0' })).toBeNull();
  });
});

describe('identity-resolution task', () => {
  const landedAt = Timestamp.fromMillis(1_700_000_000_123);
  const at = (time: Timestamp | string, ...ids: string[]) => ids.map((batchDocId) => ({ batchDocId, landedAt: time }));
  it('has an id per set of landed batches: the same batches written at the same times, whatever their order', () => {
    const one = identityResolutionTask('p', 'test', at(landedAt, batchDocId(['x']), batchDocId(['y'])));
    expect(identityResolutionTask('p', 'test', at(landedAt, batchDocId(['y']), batchDocId(['x']))).id).toBe(one.id);
    expect(one.id).toMatch(/^[A-Za-z0-9_-]{1,500}$/);
    expect(one.payload).toEqual({ projectId: 'p', env: 'test', batchDocIds: [batchDocId(['x']), batchDocId(['y'])] });
    expect(identityResolutionTask('p', 'live', at(landedAt, batchDocId(['x']), batchDocId(['y']))).id).not.toBe(one.id);
    expect(identityResolutionTask('p', 'test', at(landedAt, batchDocId(['x']))).id).not.toBe(one.id);
    // The same batch landing again (a retry after its task stored it) needs a task of its own.
    const later = Timestamp.fromMillis(1_700_000_000_124);
    expect(identityResolutionTask('p', 'test', at(later, batchDocId(['x']), batchDocId(['y']))).id).not.toBe(one.id);
    // Landings of one group keep their own commit times: swapping which batch landed when is another task.
    const mixed = [...at(landedAt, batchDocId(['x'])), ...at(later, batchDocId(['y']))];
    const swapped = [...at(later, batchDocId(['x'])), ...at(landedAt, batchDocId(['y']))];
    expect(identityResolutionTask('p', 'test', mixed).id).not.toBe(identityResolutionTask('p', 'test', swapped).id);
    expect(identityResolutionTask('p', 'test', [...mixed].reverse()).id).toBe(identityResolutionTask('p', 'test', mixed).id);
  });

  it('accepts only well-formed payloads', () => {
    const id = batchDocId([eventDocId('x')]);
    expect(parseIdentityResolutionPayload({ projectId: 'proj_1', env: 'test', batchDocIds: [id] })).toEqual({ projectId: 'proj_1', env: 'test', batchDocIds: [id] });
    expect(parseIdentityResolutionPayload({ projectId: 'proj_1', env: 'sandbox', batchDocIds: [id] })).toBeNull();
    expect(parseIdentityResolutionPayload({ projectId: 'a/b', env: 'test', batchDocIds: [id] })).toBeNull();
    expect(parseIdentityResolutionPayload({ projectId: 'proj_1', env: 'test', batchDocIds: ['../x'] })).toBeNull();
    expect(parseIdentityResolutionPayload({ projectId: 'proj_1', env: 'test', batchDocIds: [eventDocId('x')] })).toBeNull();
    expect(parseIdentityResolutionPayload({ projectId: 'proj_1', env: 'test', batchDocIds: [] })).toBeNull();
    expect(parseIdentityResolutionPayload({ projectId: 'proj_1', env: 'test', batchDocIds: Array.from({ length: MAX_BATCHES_PER_TASK + 1 }, () => id) })).toBeNull();
  });

  it('names a batch by its events, in any order', () => {
    expect(batchDocId([eventDocId('a'), eventDocId('b')])).toBe(batchDocId([eventDocId('b'), eventDocId('a')]));
    expect(batchDocId([eventDocId('a'), eventDocId('b')])).not.toBe(batchDocId([eventDocId('a')]));
    expect(batchDocId([eventDocId('a')])).toMatch(BATCH_DOC_ID_PATTERN);
  });
});

describe('batch codec', () => {
  const stored = (eventId: string, properties: string | null = null): BatchedEvent => ({
    eventId,
    eventIdSource: 'client',
    name: 'screen_view',
    timestamp: 1_700_000_000_000,
    clientTimestamp: null,
    properties,
    level: null,
    tags: { screen: 'home' },
    categoryTags: null,
    softDropped: [],
    fingerprint: null,
    hints: { developerUserId: null, anonymousId: 'device-1', serviceCustomerId: null },
    throttlePass: false,
  });

  it('round-trips the events exactly, smaller than their JSON', () => {
    const events = Array.from({ length: 100 }, (_, i) => stored(`e-${i}`, JSON.stringify({ screen: `s${i % 5}`, index: i, text: 'é "quoted" \\ \u0000' })));
    const payload = encodeBatchEvents(events);
    expect(decodeBatchEvents(payload)).toEqual(events);
    expect(payload.length).toBeLessThan(JSON.stringify(events).length / 4);
  });

  it('keeps a batch in one document unless its payload exceeds the limit, then halves it', () => {
    const events = Array.from({ length: 10 }, (_, i) => stored(`big-${i}`, JSON.stringify({ noise: randomBytes(3000).toString('base64') })));
    expect(packBatchEvents(events)).toHaveLength(1);
    const parts = packBatchEvents(events, 12_000);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.every((part) => part.payload.length <= 12_000)).toBe(true);
    expect(parts.flatMap((part) => decodeBatchEvents(part.payload))).toEqual(events);
    // A single event is never split further, whatever the limit.
    expect(packBatchEvents(events.slice(0, 1), 10)).toHaveLength(1);
  });

  it('refuses a payload that is not a compressed JSON array', () => {
    expect(() => decodeBatchEvents(Buffer.from('not gzip'))).toThrow('batch payload is not gzip-compressed JSON');
    // The message is logged: it never quotes the payload, as a JSON parser's message would.
    expect(() => decodeBatchEvents(gzipSync('{"hint": "user-secret-id"'))).toThrow(/^batch payload is not gzip-compressed JSON$/);
    expect(() => decodeBatchEvents(gzipSync('{"events":[]}'))).toThrow(/not an array/);
  });
});
