import type { Scenario } from '../scenario';

/**
 * `POST /v1/events` with 100-event batches from 10 concurrent clients. The events carry no
 * `eventId`, so every batch lands on fresh documents (server ids) rather than re-writing the same
 * 100; a tenth are error events. The events bucket (100/s, burst 1,000 per project and
 * environment) lets the first ten batches land and about one per second after that, so most of
 * the run measures the throttled path (429) by design; the round-trip column is measured on a
 * landing batch (the warm-up and probe requests run before the bucket is spent).
 */
const batch = {
  sdk: { name: '@tessera/web', version: '2.4.0' },
  envelopeVersion: 1,
  events: Array.from({ length: 100 }, (_, i) =>
    i % 10 === 9
      ? { name: 'js_error', level: 'error', anonymousId: `bench-device-${i % 7}`, properties: { errorType: 'TypeError', message: `bench failure ${i}` }, tags: { release: '2.4.0' } }
      : { name: i % 3 === 0 ? 'screen_view' : 'tap', anonymousId: `bench-device-${i % 7}`, timestamp: Date.now(), properties: { screen: `s${i % 5}`, index: i } },
  ),
};

export const eventScenarios: Scenario[] = [
  {
    name: 'POST /v1/events, 100-event batch, 10 clients (events bucket 100/s: mostly 429 after the burst)',
    note: 'one store commit per landing batch; the throttled path answers from the limiter and one read',
    connections: 10,
    prepare: async (ctx) => {
      const web = ctx.project.apps.find((app) => app.platform === 'web')!;
      return { method: 'POST', path: '/v1/events', headers: { Authorization: `Bearer ${web.keys.test.secret}` }, body: batch };
    },
  },
  {
    name: 'POST /v1/events, 100-event batch, 10 clients, limiter unmetered (landing path; events/s = 100 × req/s)',
    note: 'every batch lands: measures validation, the one commit and the task enqueue without the spec\'s bucket',
    connections: 10,
    unmetered: true,
    prepare: async (ctx) => {
      const web = ctx.project.apps.find((app) => app.platform === 'web')!;
      return { method: 'POST', path: '/v1/events', headers: { Authorization: `Bearer ${web.keys.test.secret}` }, body: batch };
    },
  },
  {
    name: 'POST /v1/events, 100-event batch, 1 client, limiter unmetered (acknowledgement latency)',
    connections: 1,
    unmetered: true,
    prepare: async (ctx) => {
      const web = ctx.project.apps.find((app) => app.platform === 'web')!;
      return { method: 'POST', path: '/v1/events', headers: { Authorization: `Bearer ${web.keys.test.secret}` }, body: batch };
    },
  },
];
