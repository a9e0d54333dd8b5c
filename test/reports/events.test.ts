/**
 * Guarantees of GET /v1/reports/events and /v1/reports/errors against seeded telemetry with
 * known answers: events counted per name and period once each (a retried batch, a repeated event
 * id and a batch stored twice never count again), throttled and dropped counts of a partly
 * throttled batch, error groups (count, distinct affected customers, first and last seen, last
 * release, level) listed newest first with cursor paging, and partition: the other
 * environment's and other projects' events never count.
 */
import { ManualClock } from '../support/manualClock';
import { createTestService, seedProject, type SeededProject, type TestService } from '../support/harness';
import { event, events, postEvents } from '../events/support';
import { DAY_MS, HOUR_MS, report } from './support';

/** 10:00:30 UTC on a fixed day: every event below lands in the 10:00 hour. */
const START = Date.UTC(2026, 5, 1, 10, 0, 30);
let service: TestService;
let project: SeededProject;
const key = () => project.ios.test.secret;

const crash = (eventId: string, fields: { user?: string; message?: string; release?: string; timestamp?: number; level?: string } = {}) =>
  event({
    eventId,
    name: 'js_error',
    level: fields.level ?? 'error',
    developerUserId: fields.user ?? 'user-1',
    timestamp: fields.timestamp,
    properties: { errorType: 'TypeError', message: fields.message ?? 'Cannot read properties of undefined', release: fields.release ?? '1.0.0', stack: 'TypeError: x\n    at f (app:///main.js:1:10)' },
  });

beforeAll(async () => {
  service = createTestService({ clock: new ManualClock(START) });
  project = await seedProject(service);
  const post = async (body: unknown, env: 'test' | 'live' = 'test') => {
    const res = await postEvents(service, project, body, { env });
    expect(res.status).toBe(202);
    return res;
  };
  // 250 screen_view and 40 purchase events (one id sent twice in a batch); the first batch is
  // retried (same ids) after it was stored.
  await post({ events: events(100, 'sv-a') });
  await service.tasks.drain();
  await post({ events: events(100, 'sv-a') });
  await post({ events: events(100, 'sv-b') });
  await post({ events: events(50, 'sv-c') });
  await post({ events: [...events(40, 'buy', { name: 'purchase' }), event({ eventId: 'buy-0', name: 'purchase' })] });
  // Error group 1 ("undefined"): 3 occurrences by 2 customers, releases 1.0.0 then 1.1.0; earliest one a minute back.
  await post({ events: [crash('e1', { user: 'u1', timestamp: START - 60_000 }), crash('e2', { user: 'u2' })] });
  service.clock.advance(2 * 60_000);
  await post({ events: [crash('e3', { user: 'u1', release: '1.1.0', level: 'warning' })] });
  // Error group 2 ("network"): 1 occurrence, newer than group 1's last.
  service.clock.advance(60_000);
  await post({ events: [crash('n1', { message: 'Network request failed', user: 'u3' })] });
  // Production events: never counted in the sandbox report.
  await post({ events: events(7, 'live-sv') }, 'live');
  await service.tasks.drain();

  // The bucket refilled while the clock moved: spend its whole burst (1,000), then a batch of 5
  // with two error events of new fingerprints: 5 throttled, the two errors pass, 3 dropped.
  service.clock.advance(60_000);
  for (let i = 1; i <= 10; i += 1) await post({ events: events(100, `fill-${i}`, { name: 'fill' }) });
  const partly = await post({ events: [...events(3, 'late'), crash('t1', { message: 'first storm', timestamp: START + 4 * 60_000 - 1000 }), crash('t2', { message: 'second storm', timestamp: START + 4 * 60_000 })] });
  expect(partly.body).toMatchObject({ received: 2, throttled: { dropped: 3 } });
  await service.tasks.drain();
}, 60_000);

it('counts each stored event once per name and period', async () => {
  const body = await report(service, key(), '/v1/reports/events');
  expect(body).toMatchObject({ object: 'list', env: 'sandbox', granularity: 'day' });
  const today = Date.UTC(2026, 5, 1);
  const counts = Object.fromEntries(body.data.filter((r: any) => r.t === today).map((r: any) => [r.name, r.count]));
  expect(counts).toEqual({ screen_view: 250, purchase: 40, js_error: 6, fill: 1000 });
  expect(body.data.filter((r: any) => r.t !== today).every((r: any) => r.count === 0)).toBe(true);
  expect(body.throttling.find((r: any) => r.t === today)).toEqual({ t: today, throttled: 5, dropped: 3 });
  expect(body.throttling).toHaveLength(31);
});

it('reports by hour, in the hour of each event’s timestamp', async () => {
  const from = START - HOUR_MS;
  const body = await report(service, key(), `/v1/reports/events?granularity=hour&from=${from}`);
  const errors = body.data.filter((r: any) => r.name === 'js_error').map((r: any) => [(r.t - Date.UTC(2026, 5, 1, 9)) / HOUR_MS, r.count]);
  // e1 is a minute before START: 09:59.
  expect(errors).toEqual([[0, 1], [1, 5]]);
});

it('never counts the other environment or another project', async () => {
  const live = await report(service, project.android.live.secret, '/v1/reports/events');
  expect(live.data.filter((r: any) => r.count > 0).map((r: any) => [r.name, r.count])).toEqual([['screen_view', 7]]);
  const other = await seedProject(service);
  expect((await report(service, other.ios.test.secret, '/v1/reports/events')).data).toEqual([]);
});

describe('error groups', () => {
  it('lists groups newest first with counts, distinct customers, first/last seen, release and level', async () => {
    const body = await report(service, key(), '/v1/reports/errors');
    expect(body).toMatchObject({ object: 'list', hasMore: false, nextCursor: null, env: 'sandbox' });
    expect(body.data.map((g: any) => g.message)).toEqual(['second storm', 'first storm', 'Network request failed', 'Cannot read properties of undefined']);
    const undefinedGroup = body.data[3];
    expect(undefinedGroup).toMatchObject({
      object: 'error_group',
      name: 'js_error',
      type: 'TypeError',
      count: 3,
      customers: 2,
      firstSeen: START - 60_000,
      lastSeen: START + 2 * 60_000,
      lastRelease: '1.1.0',
      level: 'warning',
    });
    expect(undefinedGroup.fingerprint).toMatch(/^[0-9a-f]{32}$/);
    expect(body.data[2]).toMatchObject({ count: 1, customers: 1 });
  });

  it('pages with an opaque cursor, each group once', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const body: any = await report(service, key(), `/v1/reports/errors?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      expect(body.data).toHaveLength(1);
      seen.push(body.data[0].message);
      cursor = body.nextCursor;
      expect(body.hasMore).toBe(cursor !== null);
    } while (cursor);
    expect(seen).toEqual(['second storm', 'first storm', 'Network request failed', 'Cannot read properties of undefined']);
  });

  it('filters by last seen, and keeps environments and projects apart', async () => {
    const body = await report(service, key(), `/v1/reports/errors?from=${START + 2 * 60_000}&to=${START + 2 * 60_000}`);
    expect(body.data.map((g: any) => g.message)).toEqual(['Cannot read properties of undefined']);
    expect((await report(service, project.ios.live.secret, '/v1/reports/errors')).data).toEqual([]);
    const fingerprint = body.data[0].fingerprint;
    const other = await seedProject(service);
    const res = await service.request().get(`/v1/reports/errors/${fingerprint}`).set('Authorization', `Bearer ${other.ios.test.secret}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_param_value');
  });

  it('a day later the default window still holds them; 31 days later it does not', async () => {
    service.clock.advance(DAY_MS);
    expect((await report(service, key(), '/v1/reports/errors')).data).toHaveLength(4);
    service.clock.advance(31 * DAY_MS);
    expect((await report(service, key(), '/v1/reports/errors')).data).toHaveLength(0);
    service.clock.set(START + 3 * 60_000);
  });
});
