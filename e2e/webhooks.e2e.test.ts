/**
 * An outbound webhook under the suite: a grant's `entitlement.granted` event goes through the
 * fan-out and delivery task queues of the Cloud Tasks emulator to a local receiver that fails
 * twice and then succeeds. Every attempt is recorded, the retries back off (no storm), and the
 * third attempt delivers it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { api, eventually, IOS_BUNDLE, IOS_TEST_PUBLISHABLE, tessera, WEB_TEST_SECRET } from './support/suite';

const run = Date.now().toString(36);
/** A retry sooner than this after the previous attempt is the storm the suite once produced (701 attempts a minute). */
const MIN_BACKOFF_MS = 1000;

interface Arrival {
  at: number;
  webhookId: string;
  attempt: number;
  answered: number;
}

let receiver: Server;
let receiverUrl: string;
let endpointId: string | undefined;
const arrivals: Arrival[] = [];
let customerId = '';

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const ours = customerId !== '' && body.includes(customerId);
      if (!ours) return res.writeHead(200).end('not this test’s event');
      const failuresSoFar = arrivals.filter((a) => a.answered === 500).length;
      const answered = failuresSoFar < 2 ? 500 : 200;
      arrivals.push({ at: Date.now(), webhookId: String(req.headers['service-webhook-id']), attempt: Number(req.headers['service-webhook-attempt']), answered });
      res.writeHead(answered, { 'Content-Type': 'text/plain' }).end(answered === 500 ? 'receiver failing on purpose' : 'ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/tessera-webhooks`;
});

afterAll(async () => {
  if (endpointId) tessera('webhooks', 'disable', '--endpoint', endpointId, '--note', 'end-to-end test finished');
  await new Promise((resolve) => receiver.close(resolve));
});

it('a receiver that fails twice then succeeds: three attempts recorded, backing off, then delivered', async () => {
  const endpoint = tessera('webhooks', 'create', '--project', 'proj_demo', '--env', 'test', '--url', receiverUrl, '--event', 'entitlement.granted');
  endpointId = endpoint.endpointId;
  expect(endpoint.secret).toEqual(expect.any(String));

  const identified = await api('POST', '/v1/identify', IOS_TEST_PUBLISHABLE, { userId: `e2e-hook-${run}`, anonymousId: `e2e-hook-device-${run}` }, IOS_BUNDLE);
  customerId = identified.body.serviceCustomerId;
  const grant = await api('POST', `/v1/server/customers/${customerId}/grant`, WEB_TEST_SECRET, { entitlementKey: 'pro', duration: 'P30D', reason: 'End-to-end webhook delivery with retries' });
  expect(grant.status).toBe(200);

  await eventually('the third attempt to be delivered', async () => arrivals.some((a) => a.answered === 200), 480_000, 1000);

  // One event, attempts 1, 2, 3 in order, each retry after a backoff.
  expect(arrivals.map((a) => a.attempt)).toEqual([1, 2, 3]);
  expect(new Set(arrivals.map((a) => a.webhookId)).size).toBe(1);
  expect(arrivals.map((a) => a.answered)).toEqual([500, 500, 200]);
  for (let i = 1; i < arrivals.length; i += 1) expect(arrivals[i].at - arrivals[i - 1].at).toBeGreaterThanOrEqual(MIN_BACKOFF_MS);

  // The delivery record holds every attempt with its answer, and the delivery is done.
  const record = await eventually('the delivery record to show the delivery', async () => {
    const { deliveries } = tessera('webhooks', 'deliveries', '--endpoint', endpointId!);
    const delivery = deliveries.find((d: { eventId: string }) => d.eventId === arrivals[0].webhookId) ?? deliveries[0];
    return delivery?.state === 'delivered' ? delivery : undefined;
  }, 60_000);
  expect(record.attemptCount).toBe(3);
  expect(record.attempts.map((a: { attempt: number; statusCode: number }) => [a.attempt, a.statusCode])).toEqual([
    [1, 500],
    [2, 500],
    [3, 200],
  ]);
  expect(record.nextRetryAt).toBeNull();
}, 600_000);
