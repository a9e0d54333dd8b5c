/**
 * Guarantees of Idempotency-Key on purchase sync: same key and same body replays the cached
 * response (`idempotent_replay: true`, `Idempotent-Replayed: true`); same key with another body
 * is 400 idempotency_key_in_use; only 2xx responses are cached; replays last 24 hours; two
 * concurrent requests with one key never both execute. Also: the `purchases` rate-limit bucket.
 */
import { randomUUID } from 'node:crypto';
import { HOUR } from '../../functions/src/clock';
import { asApiError } from '../../functions/src/http/errors';
import type { Reply, RequestContext } from '../../functions/src/http/route';
import { canonicalJson, IDEMPOTENCY, IDEMPOTENCY_LEASE_MS, withIdempotency } from '../../functions/src/purchases/http/idempotency';
import { expectError, lockHeaders } from '../support/harness';
import { AppleChain } from '../rails/support/appleChain';
import { transactionPayload } from '../rails/support/applePayloads';
import { createRailsWorld, type RailsWorld } from '../rails/support/railsWorld';

let world: RailsWorld;
beforeAll(async () => {
  world = await createRailsWorld();
});
afterAll(async () => {
  await world.stop();
});

function sync(body: Record<string, unknown>, idempotencyKey?: string, key = world.project.ios.test.publishable) {
  const req = world.service.request().post('/v1/purchases/sync').set('Authorization', `Bearer ${key}`).set(lockHeaders('ios'));
  if (idempotencyKey !== undefined) req.set('Idempotency-Key', idempotencyKey);
  return req.send(body);
}

const validBody = () => ({ rail: 'apple', signedTransactionInfo: world.apple.sign(transactionPayload()) });

it('replays the cached response for the same key and body', async () => {
  const key = `idem_${randomUUID()}`;
  const body = validBody();
  const first = await sync(body, key);
  expect(first.status).toBe(200);
  expect(first.headers['idempotent-replayed']).toBeUndefined();
  expect(first.body.idempotent_replay).toBeUndefined();
  const replay = await sync(body, key);
  expect(replay.status).toBe(200);
  expect(replay.headers['idempotent-replayed']).toBe('true');
  expect(replay.body).toEqual({ ...first.body, idempotent_replay: true });
  // Key order and spacing do not make a different body.
  const reordered = await world.service
    .request()
    .post('/v1/purchases/sync')
    .set('Authorization', `Bearer ${world.project.ios.test.publishable}`)
    .set(lockHeaders('ios'))
    .set('Idempotency-Key', key)
    .set('Content-Type', 'application/json')
    .send(`{ "signedTransactionInfo": "${body.signedTransactionInfo}",   "rail": "apple" }`);
  expect(reordered.body.idempotent_replay).toBe(true);
});

it('rejects the same key with a different body: 400 idempotency_key_in_use', async () => {
  const key = `idem_${randomUUID()}`;
  expect((await sync(validBody(), key)).status).toBe(200);
  expectError(await sync(validBody(), key), 400, 'invalid_request_error', 'idempotency_key_in_use');
});

it('caches only 2xx responses: a failed request runs again, and its key stays usable', async () => {
  const key = `idem_${randomUUID()}`;
  const forged = { rail: 'apple', signedTransactionInfo: new AppleChain().sign(transactionPayload()) };
  expectError(await sync(forged, key), 401, 'authentication_error', 'invalid_api_key');
  const again = await sync(forged, key);
  expectError(again, 401, 'authentication_error', 'invalid_api_key');
  expect(again.headers['idempotent-replayed']).toBeUndefined();
  const good = await sync(validBody(), key);
  expect(good.status).toBe(200);
  expect(good.body.idempotent_replay).toBeUndefined();
});

it('keeps replays for 24 hours, then the key is fresh again', async () => {
  const key = `idem_${randomUUID()}`;
  const body = validBody();
  expect((await sync(body, key)).status).toBe(200);
  world.service.clock.advance(23 * HOUR);
  expect((await sync(body, key)).body.idempotent_replay).toBe(true);
  world.service.clock.advance(HOUR + 1000);
  const fresh = await sync(validBody(), key);
  expect(fresh.status).toBe(200);
  expect(fresh.body.idempotent_replay).toBeUndefined();
});

it('never executes two concurrent requests with one key', async () => {
  const key = `idem_${randomUUID()}`;
  const body = validBody();
  const responses = await Promise.all(Array.from({ length: 6 }, () => sync(body, key)));
  const executed = responses.filter((r) => r.status === 200 && r.body.idempotent_replay === undefined);
  expect(executed).toHaveLength(1);
  for (const res of responses) {
    if (res === executed[0]) continue;
    if (res.status === 200) expect(res.body).toEqual({ ...executed[0].body, idempotent_replay: true });
    else {
      expectError(res, 429, 'rate_limit_error', 'rate_limited');
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
  }
  // Once the winner has finished, every retry is a replay.
  const retry = await sync(body, key);
  expect(retry.body.idempotent_replay).toBe(true);
});

it('lets exactly one of two racing claims run, even when both read the key as unused', async () => {
  const key = `idem_${randomUUID()}`;
  const body = { rail: 'apple', signedTransactionInfo: 'a.b.c' };
  const ctx = () =>
    ({ header: (name: string) => (name === 'idempotency-key' ? key : undefined), scope: world.scope('test'), body, deps: world.service.deps }) as unknown as RequestContext;
  let runs = 0;
  let finish: (reply: Reply) => void = () => undefined;
  const run = () => {
    runs += 1;
    return new Promise<Reply>((resolve) => (finish = resolve));
  };
  const outcomes = Promise.allSettled([withIdempotency(ctx(), 'test.race', run), withIdempotency(ctx(), 'test.race', run)]);
  // Let both claims reach the store before the winner finishes.
  await new Promise((resolve) => setTimeout(resolve, 300));
  finish({ body: { ok: true } });
  const [a, b] = await outcomes;
  expect(runs).toBe(1);
  const rejected = [a, b].filter((o) => o.status === 'rejected') as PromiseRejectedResult[];
  expect(rejected).toHaveLength(1);
  // The loser is told to come back once the winner's lease can have ended (the 429's headers).
  const busy = asApiError(rejected[0].reason);
  expect([busy.status, busy.code]).toEqual([429, 'rate_limited']);
  expect(busy.headers).toEqual({ 'Retry-After': String(Math.ceil(IDEMPOTENCY_LEASE_MS / 1000)), 'X-Service-Sample-Rate': '1' });
  expect(await withIdempotency(ctx(), 'test.race', run)).toEqual({ status: 200, body: { ok: true, idempotent_replay: true }, headers: { 'Idempotent-Replayed': 'true' } });
  expect(runs).toBe(1);
});

it('keeps keys apart per environment and stores them with a 24-hour TTL field', async () => {
  const key = `idem_${randomUUID()}`;
  expect((await sync(validBody(), key)).status).toBe(200);
  const records = await world.scope('test').collection(IDEMPOTENCY).get();
  const mine = records.docs.map((d) => d.data()).filter((d) => d.state === 'completed');
  expect(mine.length).toBeGreaterThan(0);
  for (const record of mine) expect(record.expiresAt.toMillis() - record.createdAt).toBe(24 * HOUR);
  // The live partition has never seen this key: a production body with it executes.
  const live = await sync({ rail: 'apple', signedTransactionInfo: world.apple.sign(transactionPayload({ environment: 'Production' })) }, key, world.project.ios.live.publishable);
  expect(live.status).toBe(200);
  expect(live.body.idempotent_replay).toBeUndefined();
});

it('rejects a malformed Idempotency-Key with 400 invalid_param_value', async () => {
  expectError(await sync(validBody(), 'x'.repeat(256)), 400, 'invalid_request_error', 'invalid_param_value');
});

it('hashes bodies canonically (key order and spacing do not matter, values do)', () => {
  expect(canonicalJson({ b: 1, a: [1, { d: 2, c: 3 }] })).toBe(canonicalJson({ a: [1, { c: 3, d: 2 }], b: 1 }));
  expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: '1' }));
});

it('charges the purchases bucket: 100 burst, then 429 with Retry-After', async () => {
  const key = world.project.android.test.secret;
  world.service.clock.advance(HOUR); // a full bucket
  const statuses: number[] = [];
  for (let i = 0; i < 100; i += 1) statuses.push((await sync({ rail: 'stripe' }, undefined, key)).status);
  expect(statuses.every((s) => s === 400)).toBe(true);
  const limited = await sync({ rail: 'stripe' }, undefined, key);
  expectError(limited, 429, 'rate_limit_error', 'rate_limited');
  expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
});
