/**
 * Guarantee: no input makes any POST route fail. A few hundred seeded hostile bodies per route
 * (every POST route, the three rail webhooks included, with their inner JWS / Pub/Sub documents
 * fuzzed too) — wrong types, huge strings, deep nesting, `__proto__` keys, lone surrogates,
 * bytes that are not UTF-8, truncated JSON, wrong content types — each get a 2xx or a 4xx in
 * the spec's error envelope, with `X-Request-Id` equal to the body's `request_id`; and nothing
 * pollutes Object.prototype. (How fast they answer is the bench's to measure, not a test's.) The run is reproducible: FUZZ_SEED=<n> replays it
 * (the seed is printed with every failure); FUZZ_CASES=<n> changes the cases per route.
 */
import { sign, type KeyObject } from 'node:crypto';
import Stripe from 'stripe';
import type supertest from 'supertest';
import { ERROR_CODES, type ErrorCode } from '../../functions/src/errors/codes';
import { EVENTS_BODY_LIMIT_BYTES } from '../../functions/src/events/http/ingestRoute';
import { DEFAULT_BODY_LIMIT } from '../../functions/src/http/route';
import { MAX_UPLOAD_BODY_BYTES } from '../../functions/src/sourcemaps/limits';
import { lockHeaders } from '../support/harness';
import { mutateBody, Rng, type FuzzBody } from '../support/fuzz';
import type { AppleChain } from '../rails/support/appleChain';
import { transactionPayload } from '../rails/support/applePayloads';
import { nextPurchaseToken, PUSH_SERVICE_ACCOUNT } from '../rails/support/googleFake';
import { stripeEvent, stripeIds, stripeSubscription } from '../rails/support/stripeFake';
import { createRailsWorld, PLAY_PACKAGE, WEBHOOK_SECRETS, type RailsWorld } from '../rails/support/railsWorld';

const SEED = Number(process.env.FUZZ_SEED ?? 20_251_104);
const CASES = Number(process.env.FUZZ_CASES ?? 200);
jest.setTimeout(120_000);

interface FuzzRoute {
  name: string;
  path: () => string;
  headers: () => Record<string, string>;
  maxBodyBytes: number;
  valid: (rng: Rng) => unknown;
  /** How a JSON text is sent (Stripe signs it, with the right secret half of the time). */
  send?: (json: Buffer, rng: Rng) => { bytes: Buffer; headers: Record<string, string>; note: string };
  /** The JSON document a webhook carries inside (Apple's JWS payload, Play's Pub/Sub data), fuzzed too. */
  inner?: { valid: (rng: Rng) => unknown; wrap: (innerBytes: Buffer, rng: Rng) => { body: unknown; note: string } };
}

let world: RailsWorld;
let customerId: string;
let pushToken: string;
let n = 0;
const unique = (prefix: string) => `${prefix}_fz${(n += 1)}`;

const pub = () => ({ Authorization: `Bearer ${world.project.ios.test.publishable}`, ...lockHeaders('ios') });
const secret = () => ({ Authorization: `Bearer ${world.project.ios.test.secret}` });

/** An ES256 JWS over exactly these bytes with the test chain (AppleChain.sign takes an object). */
function signJwsBytes(chain: AppleChain, payload: Buffer): string {
  const { x5c, leafKey } = chain as unknown as { x5c: string[]; leafKey: KeyObject };
  const header = Buffer.from(JSON.stringify({ alg: 'ES256', x5c })).toString('base64url');
  const body = payload.toString('base64url');
  const signature = sign('sha256', Buffer.from(`${header}.${body}`), { key: leafKey, dsaEncoding: 'ieee-p1363' });
  return `${header}.${body}.${signature.toString('base64url')}`;
}
const unsignedJws = (payload: Buffer) => `${Buffer.from('{"alg":"ES256"}').toString('base64url')}.${payload.toString('base64url')}.${Buffer.from('forged').toString('base64url')}`;

const smallMap = () => Buffer.from(JSON.stringify({ version: 3, sources: ['src/app.ts'], names: ['main'], mappings: 'AAAA' })).toString('base64');

const ROUTES: FuzzRoute[] = [
  ...['/v1/identify', '/v1/identity/alias'].map(
    (path): FuzzRoute => ({
      name: `POST ${path}`,
      path: () => path,
      headers: pub,
      maxBodyBytes: DEFAULT_BODY_LIMIT,
      valid: () => ({ userId: unique('u'), anonymousId: unique('a'), email: 'fuzz@example.com', traits: { plan: 'pro', seats: 3, beta: true, note: null } }),
    }),
  ),
  {
    name: 'POST /v1/identity/forget',
    path: () => '/v1/identity/forget',
    headers: pub,
    maxBodyBytes: DEFAULT_BODY_LIMIT,
    valid: () => ({ anonymousId: unique('a') }),
  },
  {
    name: 'POST /v1/resolve',
    path: () => '/v1/resolve',
    headers: pub,
    maxBodyBytes: DEFAULT_BODY_LIMIT,
    valid: () => ({ anonymousId: unique('a'), passkeyAvailable: true }),
  },
  {
    name: 'POST /v1/events',
    path: () => '/v1/events',
    headers: pub,
    maxBodyBytes: EVENTS_BODY_LIMIT_BYTES,
    valid: () => ({
      environment: 'sandbox',
      events: [
        { name: 'screen_view', anonymousId: unique('a'), timestamp: world.service.clock.now(), properties: { screen: 'home', n: 1, nested: { ok: [1, 2] } }, level: 'info', tags: { k: 'v' }, categoryTags: ['ui'] },
        { name: 'tap', developerUserId: unique('u'), eventId: unique('evt') },
      ],
    }),
  },
  {
    name: 'POST /v1/purchases/sync',
    path: () => '/v1/purchases/sync',
    headers: pub,
    maxBodyBytes: 128 * 1024,
    valid: () => ({ rail: 'apple', signedTransactionInfo: world.apple.sign(transactionPayload({ productId: 'pro_monthly' })), appAccountToken: '3f1d2c4b-5a6e-4f70-8a9b-0c1d2e3f4a5b' }),
  },
  {
    name: 'POST /v1/server/customers/{id}/grant',
    path: () => `/v1/server/customers/${customerId}/grant`,
    headers: secret,
    maxBodyBytes: DEFAULT_BODY_LIMIT,
    valid: (rng) => ({ entitlementKey: rng.pick(['pro', 'cloud_sync']), duration: rng.pick(['P30D', 'P90D', 'P1Y', 'lifetime']), reason: 'Fuzzing the grant route with a valid reason.' }),
  },
  {
    name: 'POST /v1/server/customers/{id}/revoke',
    path: () => `/v1/server/customers/${customerId}/revoke`,
    headers: secret,
    maxBodyBytes: DEFAULT_BODY_LIMIT,
    valid: (rng) => ({ entitlementKey: rng.pick(['pro', 'cloud_sync']), reason: 'fuzz revoke' }),
  },
  {
    name: 'POST /v1/server/customers/alias',
    path: () => '/v1/server/customers/alias',
    headers: secret,
    maxBodyBytes: 4 * 1024 * 1024,
    valid: () => ({ links: [{ userId: unique('u'), anonymousId: unique('a'), traits: { plan: 'pro' } }, { userId: unique('u'), anonymousId: unique('a') }] }),
  },
  {
    name: 'POST /v1/migration/users',
    path: () => '/v1/migration/users',
    headers: secret,
    maxBodyBytes: 16 * 1024 * 1024,
    valid: () => ({
      users: [
        { developerUserId: unique('u'), email: 'm@example.com', traits: { plan: 'pro' }, entitlements: { pro: true } },
        { developerUserId: unique('u'), stripeCustomerId: stripeIds.customer(), storeAOriginalTransactionId: unique('otx') },
      ],
    }),
  },
  {
    name: 'POST /v1/releases/sourcemaps',
    path: () => '/v1/releases/sourcemaps',
    headers: secret,
    maxBodyBytes: MAX_UPLOAD_BODY_BYTES,
    valid: () => ({ release: unique('1.0.0'), environment: 'sandbox', files: [{ fileUrl: 'https://cdn.example.com/app.js', sourceMap: smallMap() }] }),
  },
  {
    name: 'POST /v1/webhooks/stripe/{projectId}',
    path: () => `/v1/webhooks/stripe/${world.project.projectId}`,
    headers: () => ({}),
    maxBodyBytes: DEFAULT_BODY_LIMIT,
    valid: () => stripeEvent('customer.subscription.created', stripeSubscription({ id: stripeIds.subscription(), customer: stripeIds.customer() }), { created: Math.floor(world.service.clock.now() / 1000) }),
    send: (json, rng) => {
      const signed = rng.chance(0.5);
      const header = signed
        ? Stripe.webhooks.generateTestHeaderString({ payload: json.toString('utf8'), secret: WEBHOOK_SECRETS.test, timestamp: Math.floor(world.service.clock.now() / 1000) })
        : rng.pick(['', 't=1,v1=bad', 'garbage', `t=${Math.floor(world.service.clock.now() / 1000)},v1=${'0'.repeat(64)}`]);
      const headers: Record<string, string> = header ? { 'Stripe-Signature': header } : {};
      return { bytes: json, headers, note: signed ? 'signed' : 'unsigned' };
    },
  },
  {
    name: 'POST /v1/webhooks/apple/{projectId}',
    path: () => `/v1/webhooks/apple/${world.project.projectId}`,
    headers: () => ({}),
    maxBodyBytes: DEFAULT_BODY_LIMIT,
    valid: () => ({ signedPayload: world.apple.sign(appleNotification()) }),
    inner: {
      valid: appleNotification,
      wrap: (payload, rng) => {
        const signed = rng.chance(0.5);
        return { body: { signedPayload: signed ? signJwsBytes(world.apple, payload) : unsignedJws(payload) }, note: signed ? 'signed' : 'unsigned' };
      },
    },
  },
  {
    name: 'POST /v1/webhooks/google/{projectId}',
    path: () => `/v1/webhooks/google/${world.project.projectId}`,
    headers: () => ({}),
    maxBodyBytes: DEFAULT_BODY_LIMIT,
    valid: () => pubSubBody(Buffer.from(JSON.stringify(playNotification()))),
    send: (json, rng) => {
      const token = rng.chance(0.6) ? pushToken : rng.pick([null, 'not.a.token']);
      const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
      return { bytes: json, headers, note: token === pushToken ? 'valid push token' : 'no valid push token' };
    },
    inner: { valid: playNotification, wrap: (data) => ({ body: pubSubBody(data), note: 'in message.data' }) },
  },
];

function appleNotification(): Record<string, unknown> {
  const transaction = transactionPayload({ productId: 'pro_monthly' });
  return {
    notificationType: 'SUBSCRIBED',
    subtype: 'INITIAL_BUY',
    notificationUUID: unique('uuid'),
    data: { environment: 'Sandbox', bundleId: 'com.example.app', bundleVersion: '1.0', signedTransactionInfo: world.apple.sign(transaction) },
    version: '2.0',
    signedDate: Date.now(),
  };
}

function playNotification(): Record<string, unknown> {
  return {
    version: '1.0',
    packageName: PLAY_PACKAGE,
    eventTimeMillis: String(Date.now()),
    subscriptionNotification: { version: '1.0', notificationType: 4, purchaseToken: nextPurchaseToken(), subscriptionId: 'pro_monthly' },
  };
}

function pubSubBody(data: Buffer): Record<string, unknown> {
  const messageId = unique('msg');
  return { message: { data: data.toString('base64'), messageId, message_id: messageId, publishTime: new Date().toISOString(), attributes: {} }, subscription: 'projects/example-project/subscriptions/play-rtdn' };
}

/** One generated request for a route: the body bytes, content type and extra headers. */
function generate(route: FuzzRoute, rng: Rng): { label: string; contentType: string | null; bytes: Buffer; headers: Record<string, string> } {
  const options = { maxBodyBytes: route.maxBodyBytes, overLimit: route.maxBodyBytes <= 4 * 1024 * 1024 };
  let label: string;
  let outer: { value?: unknown; text?: { stringify(value: unknown): string }; raw?: FuzzBody };
  if (route.inner && rng.chance(0.5)) {
    const inner = mutateBody(rng, route.inner.valid(rng), { maxBodyBytes: 64 * 1024, overLimit: false });
    const innerBytes = inner.raw ? inner.raw.bytes : Buffer.from(inner.text!.stringify(inner.value));
    const wrapped = route.inner.wrap(innerBytes, rng);
    label = `inner (${wrapped.note}): ${inner.label}`;
    outer = { value: wrapped.body, text: { stringify: (value) => JSON.stringify(value) } };
  } else {
    const mutated = mutateBody(rng, route.valid(rng), options);
    label = mutated.label;
    outer = mutated;
  }
  const body: FuzzBody = outer.raw ?? { label, contentType: 'application/json', bytes: Buffer.from(outer.text!.stringify(outer.value)) };
  const sent = route.send ? route.send(body.bytes, rng) : { bytes: body.bytes, headers: {}, note: '' };
  return { label: sent.note ? `${sent.note}, ${label}` : label, contentType: body.contentType, bytes: sent.bytes, headers: sent.headers };
}

/** What is wrong with an answer, or null: the status class, the envelope, the request id. */
function problemWith(res: supertest.Response): string | null {
  const requestId = res.headers['x-request-id'];
  if (res.status >= 500 || res.status < 200 || (res.status >= 300 && res.status < 400)) return `status ${res.status}`;
  if (typeof requestId !== 'string' || !/^req_/.test(requestId)) return 'no X-Request-Id';
  if (res.status < 300) return null;
  const error = res.body?.error;
  if (!error || typeof error.message !== 'string') return 'no error envelope';
  const spec = ERROR_CODES[error.code as ErrorCode];
  if (!spec) return `unknown error code ${error.code}`;
  if (spec.status !== res.status || spec.type !== error.type) return `code ${error.code} with status ${res.status} and type ${error.type}`;
  if (error.request_id !== requestId) return `request_id ${error.request_id} ≠ X-Request-Id ${requestId}`;
  return null;
}

beforeAll(async () => {
  world = await createRailsWorld();
  const identified = await world.service.request().post('/v1/identify').set(pub()).send({ userId: 'fuzz-owner', anonymousId: 'fuzz-device' });
  customerId = identified.body.serviceCustomerId;
  pushToken = await world.google.pushToken({ audience: world.pushAudience, email: PUSH_SERVICE_ACCOUNT });
}, 60_000);
afterAll(async () => {
  await world.service.tasks.drain();
  await world.stop();
});

/** A per-route seed, so each route's cases replay alone. */
const routeSeed = (name: string) => [...name].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16_777_619) >>> 0, SEED >>> 0);

it.each(ROUTES.map((route) => [route.name, route] as const))('%s answers every generated body with 2xx or 4xx in the envelope', async (_name, route) => {
  const rng = new Rng(routeSeed(route.name));
  const failures: string[] = [];
  for (let i = 0; i < CASES; i += 1) {
    const generated = generate(route, rng);
    // One second per request refills every rate-limit bucket enough to reach the handlers.
    world.service.clock.advance(1_000);
    let req = world.service.request().post(route.path()).set({ ...route.headers(), ...generated.headers });
    if (generated.contentType) req = req.set('Content-Type', generated.contentType);
    const res = await req.serialize((body: unknown) => body as string).send(generated.bytes as unknown as string);
    const problem = problemWith(res);
    if (problem) failures.push(`case ${i} (${generated.label}): ${problem} — ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
  }
  if (failures.length > 0) {
    throw new Error(`FUZZ_SEED=${SEED} ${route.name}: ${failures.length} of ${CASES} cases failed:\n${failures.slice(0, 25).join('\n')}`);
  }
});

it('leaves Object.prototype unpolluted', () => {
  expect(Object.keys(Object.prototype)).toEqual([]);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
});
