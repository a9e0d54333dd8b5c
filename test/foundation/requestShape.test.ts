/**
 * Guarantees of the pipeline's request-shape rules on real routes: a string that is not
 * well-formed Unicode (a lone UTF-16 surrogate in a value or an object key, at any depth), a
 * body whose bytes are not UTF-8, JSON nested deeper than 64 levels, and a path or query
 * parameter whose percent-encoding is malformed or not UTF-8 are each answered at once with
 * `400 invalid_param_value` naming the field, logged with the request id, and write nothing.
 * Bodies within the limits still pass.
 */
import { findCustomerIdByIdentity } from '../../functions/src/customers/lookup';
import { MAX_JSON_DEPTH } from '../../functions/src/wire/jsonShape';
import { logs } from '../../functions/src/http/logs';
import { EnvScope } from '../../functions/src/store/scope';
import { createTestService, expectError, lockHeaders, seedProject, type SeededProject, type TestService } from '../support/harness';

let service: TestService;
let project: SeededProject;
beforeAll(async () => {
  service = createTestService();
  project = await seedProject(service);
});
beforeEach(() => service.clock.advance(61_000)); // refilled rate-limit buckets

const pub = () => ({ Authorization: `Bearer ${project.ios.test.publishable}`, ...lockHeaders('ios') });
const secret = () => ({ Authorization: `Bearer ${project.ios.test.secret}` });
const postJson = (path: string, text: string | Buffer, headers: Record<string, string>) =>
  // `serialize` keeps the bytes exactly as given (superagent would JSON-encode a Buffer).
  service.request().post(path).set(headers).set('Content-Type', 'application/json').serialize((body: unknown) => body as string).send(text);

function expectInvalid(res: Parameters<typeof expectError>[0], mention: string): void {
  expectError(res, 400, 'invalid_request_error', 'invalid_param_value');
  expect(res.body.error.message).toContain(mention);
}

describe('lone surrogates in JSON bodies', () => {
  it('identify: a lone surrogate in a trait value, email or a trait key is 400 naming the field, and nothing is stored', async () => {
    const cases: [string, string][] = [
      ['{"userId":"u2","anonymousId":"a2","traits":{"plan":"pro\\ud800"}}', '`traits.plan`'],
      ['{"userId":"u2","anonymousId":"a2","email":"x\\udc00@example.com"}', '`email`'],
      ['{"userId":"u2","anonymousId":"a2","traits":{"pl\\ud800an":"pro"}}', '`traits.pl\ufffdan`'],
      ['{"userId":"u2\\ud83d","anonymousId":"a2"}', '`userId`'],
    ];
    for (const [body, field] of cases) expectInvalid(await postJson('/v1/identify', body, pub()), field);
    const scope = new EnvScope(service.deps.db, project.projectId, 'test');
    expect(await findCustomerIdByIdentity(scope, 'developer', 'u2')).toBeNull();
    expect(await findCustomerIdByIdentity(scope, 'anonymous', 'a2')).toBeNull();
  });

  it('identify: a surrogate pair (an emoji) is well-formed and accepted', async () => {
    const res = await postJson('/v1/identify', '{"userId":"u3","anonymousId":"a3","traits":{"mood":"\\ud83d\\ude00"}}', pub());
    expect(res.status).toBe(200);
  });

  it('events: a lone surrogate deep in properties names its path', async () => {
    const body = '{"events":[{"name":"ok","anonymousId":"a1"},{"name":"x","anonymousId":"a1","properties":{"list":[1,{"k":"\\udfff"}]}}]}';
    expectInvalid(await postJson('/v1/events', body, pub()), '`events[1].properties.list[1].k`');
  });

  it('webhooks: a rail body is not judged before it is verified (the project here has no Stripe rail: that is what it hears)', async () => {
    const res = await postJson(`/v1/webhooks/stripe/${project.projectId}`, '{"id":"\\ud800","type":"customer.subscription.created"}', { 'Stripe-Signature': 't=1,v1=bad' });
    expectInvalid(res, 'Stripe is not configured');
    expect(res.body.error.message).not.toContain('`id`');
  });

  it('logs the rejection with the request id the client received', async () => {
    const rejected = jest.spyOn(logs, 'requestRejected');
    try {
      const res = await postJson('/v1/identify', '{"userId":"u4","anonymousId":"a4","traits":{"plan":"\\ud800"}}', pub());
      expectInvalid(res, '`traits.plan`');
      expect(rejected).toHaveBeenCalledWith(res.body.error.request_id, 'POST', '/v1/identify', 400, 'invalid_param_value', 'ill-formed Unicode at traits.plan');
    } finally {
      rejected.mockRestore();
    }
  });
});

describe('bytes that are not UTF-8', () => {
  it('is 400 rather than a silent U+FFFD', async () => {
    const body = Buffer.concat([Buffer.from('{"userId":"u5","anonymousId":"a5","traits":{"plan":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}}')]);
    expectInvalid(await postJson('/v1/identify', body, pub()), 'not valid UTF-8');
  });
});

describe('deep nesting', () => {
  const deepObjects = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
  const deepArrays = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
  const eventsWith = (properties: string) => `{"events":[{"name":"deep","anonymousId":"a1","properties":${properties}}]}`;

  it('events: properties nested 10,000 levels (objects or arrays) is 400 naming the field, not 500', async () => {
    expectInvalid(await postJson('/v1/events', eventsWith(deepObjects(10_000)), pub()), '`events[0].properties.a.a');
    expectInvalid(await postJson('/v1/events', eventsWith(`{"a":${deepArrays(10_000)}}`), pub()), `at most ${MAX_JSON_DEPTH} levels`);
  });

  it(`events: a body nested exactly ${MAX_JSON_DEPTH} levels is accepted`, async () => {
    // The body, `events`, the event and `properties` are four levels; 60 more objects inside.
    const res = await postJson('/v1/events', eventsWith(`{"a":${deepObjects(MAX_JSON_DEPTH - 4)}}`), pub());
    expect(res.status).toBe(202);
  });

  it('every other route answers 400 too (a keyed route, a route that takes no key); a rail webhook judges its body only once verified', async () => {
    const deep = deepArrays(10_000);
    const webhook = await postJson(`/v1/webhooks/apple/${project.projectId}`, deep, {});
    expectInvalid(webhook, 'signedPayload');
    expectInvalid(await postJson('/v1/migration/users', `{"users":[${deepObjects(1_000)}]}`, secret()), '`users[0].a.a');
    expectInvalid(await postJson('/v1/purchases/sync', deep, pub()), `at most ${MAX_JSON_DEPTH} levels`);
  });
});

describe('path and query parameters', () => {
  it('a malformed or non-UTF-8 percent-encoding in a path parameter is 400 naming it', async () => {
    for (const raw of ['%ED%A0%80', '%E0%A4%A', '%ff', '%']) {
      expectInvalid(await service.request().post(`/v1/server/customers/${raw}/grant`).set(secret()).send({ entitlement: 'pro' }), '`customerId`');
      expectInvalid(await postJson(`/v1/webhooks/stripe/${raw}`, '{}', {}), '`projectId`');
      expectInvalid(await service.request().get(`/v1/server/audit/${raw}`).set(secret()), '`eventId`');
    }
  });

  it('a well-formed percent-encoding still reaches the route', async () => {
    const res = await service.request().get('/v1/server/audit/evt%5Fmissing').set(secret());
    expectInvalid(res, 'evt_missing');
  });

  it('a malformed or non-UTF-8 query parameter is 400 naming it', async () => {
    expectInvalid(await service.request().get('/v1/entitlements?anonymousId=%ED%A0%80').set(pub()), '`anonymousId`');
    expectInvalid(await service.request().get('/v1/entitlements?anonymousId=a%zz').set(pub()), '`anonymousId`');
  });
});
