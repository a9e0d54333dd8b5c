/**
 * Guarantees of POST /v1/identity/forget and the erasure pipeline: the authority rules, the
 * `forgot` shape (null serviceCustomerId when nothing matched), erasure end to end (queued →
 * executed → personal data gone, payment-rail records and audit entries kept), a repeated
 * request collapsing to one audited decision, and the retention worker finishing an erasure
 * whose task was lost.
 */
import { DAY, MINUTE } from '../../functions/src/clock';
import { createDeps } from '../../functions/src/app/deps';
import type { AuditEntry } from '../../functions/src/audit/model';
import { PENDING_ERASURES } from '../../functions/src/identity/erasureModel';
import type { CustomerRecord } from '../../functions/src/customers/model';
import { customerRef, identityRef } from '../../functions/src/customers/refs';
import { runRetention } from '../../functions/src/retention/worker';
import { EnvScope } from '../../functions/src/store/scope';
import { InProcessTaskQueue } from '../../functions/src/tasks/inProcessQueue';
import type { EnqueueOptions, EnqueueResult, QueueName, TaskQueue } from '../../functions/src/tasks/queue';
import supertest from 'supertest';
import { ALL_ROUTES } from '../../functions/src/app/groups';
import { createServiceApp } from '../../functions/src/app/serviceApp';
import { describeSecuredRoute } from '../support/securitySuite';
import { createTestService, expectError, lockHeaders, seedProject, type SeededProject, type TestService } from '../support/harness';
import { seedGrants } from './support/grants';
import { configureProvider, startProvider, type TestProvider } from './support/tokens';

describeSecuredRoute({ method: 'POST', path: '/v1/identity/forget', key: 'any', body: { anonymousId: 'sec-device' } });

/** The in-process queue, holding tasks until released, so a test can act while a task waits. */
class HeldQueue extends InProcessTaskQueue {
  private held: [QueueName, Record<string, unknown>, EnqueueOptions][] = [];
  enqueued: string[] = [];
  override async enqueue(queue: QueueName, payload: Record<string, unknown>, options: EnqueueOptions): Promise<EnqueueResult> {
    this.enqueued.push(options.id);
    this.held.push([queue, payload, options]);
    return 'enqueued';
  }
  async release(): Promise<void> {
    const held = this.held;
    this.held = [];
    for (const [queue, payload, options] of held) await super.enqueue(queue, payload, options);
    await this.drain();
  }
}

const queue = new HeldQueue({ backoffMs: () => 0 });
let service: TestService;
let project: SeededProject;
let provider: TestProvider;
const pub = () => ({ Authorization: `Bearer ${project.web.test.publishable}`, ...lockHeaders('web') });
const secret = () => ({ Authorization: `Bearer ${project.web.test.secret}` });
const forget = (body: object, headers: Record<string, string> = pub()) => service.request().post('/v1/identity/forget').set(headers).send(body);
const identify = (body: object) => service.request().post('/v1/identify').set(pub()).send(body);
const scope = () => new EnvScope(service.deps.db, project.projectId, 'test');
const customer = async (id: string) => (await customerRef(scope(), id).get()).data() as CustomerRecord;
const audit = async (customerId: string) =>
  (await scope().collection('audit').where('customerId', '==', customerId).get()).docs.map((d) => d.data() as AuditEntry).sort((a, b) => a.processedAt - b.processedAt);

beforeAll(async () => {
  service = createTestService({ tasks: queue });
  project = await seedProject(service);
  provider = await startProvider(() => service.clock.now());
  await configureProvider(service.deps.db, project.projectId, { jwksUri: provider.jwksUri });
});
afterAll(() => provider.close());
// The forget bucket is 1/s, burst 10: give each test a full bucket.
beforeEach(async () => {
  service.clock.advance(11_000);
  await queue.release();
});

describe('authority', () => {
  it('identified erasure with a publishable key and no token → 401 identity_token_invalid', async () => {
    const linked = await identify({ userId: 'auth-user', anonymousId: 'auth-device' });
    expectError(await forget({ userId: 'auth-user' }), 401, 'authentication_error', 'identity_token_invalid');
    expectError(await forget({ customerId: linked.body.serviceCustomerId }), 401, 'authentication_error', 'identity_token_invalid');
    expectError(await forget({ userId: 'auth-user', idToken: await provider.sign({ sub: 'someone-else' }) }), 401, 'authentication_error', 'identity_token_invalid');
    expect((await customer(linked.body.serviceCustomerId)).status).toBe('active');
  });

  it('a verified token authorises its own user’s customer only', async () => {
    const mine = await identify({ userId: 'token-user', anonymousId: 'token-device' });
    const theirs = await identify({ userId: 'other-user', anonymousId: 'other-device' });
    const idToken = await provider.sign({ sub: 'token-user' });
    expectError(await forget({ userId: 'token-user', customerId: theirs.body.serviceCustomerId, idToken }), 401, 'authentication_error', 'identity_token_invalid');
    const res = await forget({ userId: 'token-user', idToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ object: 'forgot', serviceCustomerId: mine.body.serviceCustomerId, queuedAt: service.clock.now(), env: 'sandbox' });
    expect((await customer(theirs.body.serviceCustomerId)).status).toBe('active');
  });

  it('a secret key may erase by customerId or userId; an anonymous id alone needs no proof', async () => {
    const a = await identify({ userId: 'sk-user', anonymousId: 'sk-device' });
    expect((await forget({ customerId: a.body.serviceCustomerId }, secret())).body.serviceCustomerId).toBe(a.body.serviceCustomerId);
    const b = await identify({ userId: 'anon-only-user', anonymousId: 'anon-only-device' });
    expect((await forget({ anonymousId: 'anon-only-device' })).body.serviceCustomerId).toBe(b.body.serviceCustomerId);
  });

  it('no hint matching a customer is still 200, with serviceCustomerId null', async () => {
    const res = await forget({ anonymousId: 'nobody-device' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ object: 'forgot', serviceCustomerId: null, queuedAt: service.clock.now(), env: 'sandbox' });
    expect((await forget({ userId: 'nobody' }, secret())).body.serviceCustomerId).toBeNull();
  });

  it('is rate limited by the forget bucket (1/s, burst 10)', async () => {
    for (let i = 0; i < 10; i += 1) expect((await forget({ anonymousId: `burst-${i}` })).status).toBe(200);
    const limited = await forget({ anonymousId: 'burst-10' });
    expectError(limited, 429, 'rate_limit_error', 'rate_limited');
    expect(limited.headers['retry-after']).toBe('1');
  });

  it('validates the body', async () => {
    expectError(await forget({}), 400, 'invalid_request_error', 'invalid_param_value');
    expectError(await forget({ customerId: 'cus_123' }, secret()), 400, 'invalid_request_error', 'invalid_customer');
    expectError(await forget({ anonymousId: 'bad device' }), 400, 'invalid_request_error', 'invalid_param_value');
  });
});

describe('erasure', () => {
  it('queued → executed → personal data gone; grants, rail identifiers and audit kept; a repeat collapses', async () => {
    const linked = await identify({ userId: 'erase-me', anonymousId: 'erase-device', email: 'erase@example.com', traits: { plan: 'pro' } });
    const id = linked.body.serviceCustomerId as string;
    const now = service.clock.now();
    await identRail(id);
    await seedGrants(scope(), id, [{ entitlementKey: 'pro', validUntil: now + 30 * DAY, source: { rail: 'stripe', productId: 'p', subscriptionId: 's' } }], now);
    await scope().collection('events').doc('e_test_1').set({ eventId: 'ev1', name: 'opened', serviceCustomerId: id, hints: { developerUserId: 'erase-me', anonymousId: 'erase-device', serviceCustomerId: null } });
    await scope().collection('events').doc('e_test_2').set({ eventId: 'ev2', name: 'opened', hints: { developerUserId: null, anonymousId: 'erase-device', serviceCustomerId: null } });
    await scope().collection('events').doc('e_test_3').set({ eventId: 'ev3', name: 'opened', hints: { developerUserId: 'someone-else', anonymousId: 'elsewhere', serviceCustomerId: null } });

    const requestedAt = service.clock.now();
    const first = await forget({ userId: 'erase-me' }, secret());
    expect(first.body).toEqual({ object: 'forgot', serviceCustomerId: id, queuedAt: requestedAt, env: 'sandbox' });
    service.clock.advance(5000);
    const repeat = await forget({ anonymousId: 'erase-device' });
    expect(repeat.body).toEqual({ object: 'forgot', serviceCustomerId: id, queuedAt: requestedAt, env: 'sandbox' });

    expect(queue.enqueued.filter((taskId) => taskId.endsWith(id))).toEqual([`erasure-${project.projectId}-test-${id}`, `erasure-${project.projectId}-test-${id}`]);
    expect((await customer(id)).status).toBe('erasure_pending');
    await queue.release(); // the in-process queue de-duplicates the second enqueue by task id
    const record = await customer(id);
    expect(record).toMatchObject({ status: 'erased', email: null, traits: {}, identities: [{ kind: 'stripe', id: `cus_${id}` }] });
    expect(record.erasure).toMatchObject({ requestedAt, completedAt: expect.any(Number) });
    expect((await identityRef(scope(), 'developer', 'erase-me').get()).exists).toBe(false);
    expect((await identityRef(scope(), 'anonymous', 'erase-device').get()).exists).toBe(false);
    expect((await identityRef(scope(), 'stripe', `cus_${id}`).get()).exists).toBe(true);
    expect((await scope().collection('events').doc('e_test_1').get()).exists).toBe(false);
    expect((await scope().collection('events').doc('e_test_2').get()).exists).toBe(false);
    expect((await scope().collection('events').doc('e_test_3').get()).exists).toBe(true);
    expect((await scope().collection('grants').where('customerId', '==', id).get()).size).toBe(1);
    expect((await scope().collection('projections').doc(id).get()).exists).toBe(true);
    expect((await service.deps.db.collection(PENDING_ERASURES).where('customerId', '==', id).get()).size).toBe(0);

    const entries = await audit(id);
    expect(entries.map((e) => [e.eventType, e.rail, e.decision])).toEqual([
      ['customer.erasure_requested', 'manual', 'applied'],
      ['customer.erasure_completed', 'manual', 'applied'],
    ]);
    expect(entries[0].eventId).toMatch(/^srv_erasure_/);

    // after erasure: the identifiers are gone, a new login is a new customer, a repeat changes nothing
    expect((await forget({ userId: 'erase-me' }, secret())).body.serviceCustomerId).toBeNull();
    expect((await forget({ customerId: id }, secret())).body).toMatchObject({ serviceCustomerId: id, queuedAt: requestedAt });
    expect(await audit(id)).toHaveLength(2);
    const again = await identify({ userId: 'erase-me', anonymousId: 'erase-device' });
    expect(again.body.serviceCustomerId).not.toBe(id);
  });

  it('the retention worker finishes an erasure whose task was lost', async () => {
    const lostQueue: TaskQueue = {
      enqueue: async () => {
        throw new Error('queue unavailable');
      },
    };
    const lossyDeps = createDeps({ clock: service.clock, tasks: lostQueue });
    const linked = await identify({ userId: 'lost-task', anonymousId: 'lost-device' });
    const id2 = linked.body.serviceCustomerId as string;
    const lost = await supertest(createServiceApp(ALL_ROUTES, lossyDeps)).post('/v1/identity/forget').set({ Authorization: `Bearer ${project.android.test.secret}` }).send({ customerId: id2 });
    expect(lost.status).toBe(200);
    expect(lost.body.serviceCustomerId).toBe(id2);
    expect((await customer(id2)).status).toBe('erasure_pending');

    expect((await runRetention(lossyDeps)).erasures.erased).toBe(0); // too recent: its task may still be retrying
    service.clock.advance(31 * MINUTE);
    const report = await runRetention(lossyDeps);
    expect(report.erasures.erased).toBeGreaterThanOrEqual(1); // the worker scans every partition
    expect((await customer(id2)).status).toBe('erased');
    expect((await identityRef(scope(), 'developer', 'lost-task').get()).exists).toBe(false);
    // idempotent: a second run finds nothing of ours left to do and records nothing twice
    await runRetention(lossyDeps);
    expect((await audit(id2)).map((e) => e.eventType)).toEqual(['customer.erasure_requested', 'customer.erasure_completed']);
    expect((await service.deps.db.collection(PENDING_ERASURES).where('customerId', '==', id2).get()).size).toBe(0);
  });
});

async function identRail(customerId: string): Promise<void> {
  // A rail identifier, as the card processor's linkage would record it.
  const ref = identityRef(scope(), 'stripe', `cus_${customerId}`);
  await ref.set({ kind: 'stripe', id: `cus_${customerId}`, customerId, assurance: 'rail', createdAt: service.clock.now() });
  const record = await customer(customerId);
  await customerRef(scope(), customerId).update({ identities: [...record.identities, { kind: 'stripe', id: `cus_${customerId}` }] });
}
