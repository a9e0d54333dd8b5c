/**
 * Guarantees of event throttling (Limits › Rate limits, POST /v1/events rule 5), on a manual
 * clock: an idle project spends a full burst of 1,000 events at once; a batch the bucket can
 * only partly pay lands the part it can and answers 202 with `throttled`; beyond the bucket, one
 * error event per fingerprint per minute still lands (across instances too) and the rest are
 * dropped; when nothing can land the answer is 429 with Retry-After and X-Service-Sample-Rate.
 */
import { ManualClock } from '../support/manualClock';
import { createTestService, expectError, seedProject, type SeededProject, type TestService } from '../support/harness';
import { event, events, postEvents, storedEvent, storedEvents } from './support';

/** 59.5 s into a minute: the error-pass test crosses into the next minute with a short advance. */
const START = Date.UTC(2026, 5, 1, 10, 0, 59, 500);

const services: TestService[] = [];
function service(): TestService {
  const created = createTestService({ clock: new ManualClock(START) });
  services.push(created);
  return created;
}
afterAll(() => Promise.all(services.map((s) => s.tasks.drain())));

/** Spends the whole burst: ten batches of 100 ordinary events, all landing. */
async function spendBurst(svc: TestService, project: SeededProject, prefix: string, batches = 10): Promise<void> {
  for (let i = 0; i < batches; i += 1) {
    const res = await postEvents(svc, project, { events: events(100, `${prefix}-${i}`) });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ object: 'list', received: 100, env: 'sandbox' });
  }
}

const crash = (eventId: string, message = 'Cannot read properties of undefined') =>
  event({ eventId, name: 'js_error', level: 'error', properties: { errorType: 'TypeError', message } });

it('an idle project lands a full burst of 1,000 events at once, then answers 429 with its headers and lands nothing', async () => {
  const svc = service();
  const project = await seedProject(svc);
  await spendBurst(svc, project, 'burst');
  expect(await storedEvents(svc, project.projectId)).toHaveLength(1000);

  const res = await postEvents(svc, project, { events: events(10, 'over') });
  expectError(res, 429, 'rate_limit_error', 'rate_limited');
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  const sampleRate = Number(res.headers['x-service-sample-rate']);
  expect(sampleRate).toBeGreaterThan(0);
  expect(sampleRate).toBeLessThanOrEqual(1);
  expect(await storedEvent(svc, project.projectId, 'over-0')).toBeNull();
  expect(await storedEvents(svc, project.projectId)).toHaveLength(1000);
});

it('a partly payable batch lands what fits, in order, and answers 202 with throttled', async () => {
  const svc = service();
  const project = await seedProject(svc);
  await spendBurst(svc, project, 'part');
  svc.clock.advance(500); // 100/s sustained: 50 tokens

  const res = await postEvents(svc, project, { events: events(100, 'half') });
  expect(res.status).toBe(202);
  expect(res.body).toEqual({
    object: 'list',
    received: 50,
    env: 'sandbox',
    throttled: { dropped: 50, sampleRate: expect.any(Number), retryAfterMs: expect.any(Number) },
  });
  expect(res.body.throttled.sampleRate).toBeGreaterThan(0);
  expect(res.body.throttled.sampleRate).toBeLessThan(1);
  expect(res.body.throttled.retryAfterMs).toBe(500);
  expect(res.headers['retry-after']).toBeUndefined();
  const landed = (await storedEvents(svc, project.projectId)).filter((e) => e.eventId.startsWith('half-')).map((e) => Number(e.eventId.slice(5)));
  expect(landed.sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
});

it('beyond the bucket, one error event per fingerprint per minute still lands; the rest are dropped', async () => {
  const svc = service();
  const project = await seedProject(svc);
  await spendBurst(svc, project, 'flood');

  const first = await postEvents(svc, project, {
    events: [
      ...events(3, 'plain-a'),
      crash('f1'),
      crash('f2'),
      crash('g1', 'Network request failed with status 503'),
      crash('f3'),
      crash('g2', 'Network request failed with status 502'),
      event({ eventId: 'bad-level', level: 'panic' }),
    ],
  });
  expect(first.status).toBe(202);
  expect(first.body).toMatchObject({ object: 'list', received: 2, env: 'sandbox', throttled: { dropped: 7 } });
  const passF = await storedEvent(svc, project.projectId, 'f1');
  const passG = await storedEvent(svc, project.projectId, 'g1');
  expect(passF).toMatchObject({ throttlePass: true, level: 'error' });
  expect(passG).toMatchObject({ throttlePass: true });
  for (const dropped of ['f2', 'f3', 'g2', 'plain-a-0', 'bad-level']) expect(await storedEvent(svc, project.projectId, dropped)).toBeNull();

  // Same minute: the fingerprint has had its pass; nothing can land.
  const again = await postEvents(svc, project, { events: [crash('f4')] });
  expectError(again, 429, 'rate_limit_error', 'rate_limited');

  // Another instance (its own memory and limiter) learns it from the store, in the same minute.
  const otherInstance = createTestService({ clock: new ManualClock(START) });
  services.push(otherInstance);
  const elsewhere = await postEvents(otherInstance, project, { events: [crash('f5')] });
  expectError(elsewhere, 429, 'rate_limit_error', 'rate_limited');
  expect(await storedEvent(svc, project.projectId, 'f5')).toBeNull();

  // The next minute: 60 tokens have refilled; the fingerprint passes once more, after them.
  svc.clock.advance(600);
  const nextMinute = await postEvents(svc, project, { events: [...events(70, 'refill'), crash('f6'), crash('f7')] });
  expect(nextMinute.status).toBe(202);
  expect(nextMinute.body).toMatchObject({ received: 61, throttled: { dropped: 11 } });
  expect(await storedEvent(svc, project.projectId, 'f6')).toMatchObject({ throttlePass: true });
  expect(await storedEvent(svc, project.projectId, 'f7')).toBeNull();
});

it('error events that fit in the grant land as ordinary events and do not use up the pass', async () => {
  const svc = service();
  const project = await seedProject(svc);
  const res = await postEvents(svc, project, { events: [crash('paid-1'), crash('paid-2'), ...events(98, 'with-paid')] });
  expect(res.body).toEqual({ object: 'list', received: 100, env: 'sandbox' });
  expect(await storedEvent(svc, project.projectId, 'paid-1')).toMatchObject({ throttlePass: false });
  await spendBurst(svc, project, 'after-paid', 9);
  const pass = await postEvents(svc, project, { events: [crash('pass-1')] });
  expect(pass.status).toBe(202);
  expect(pass.body.received).toBe(1);
});
