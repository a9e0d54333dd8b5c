/**
 * Guarantee: erasing a customer removes what the reports hold about that person — its
 * error-group memberships and any group sample taken from its events (the detail then has no
 * sample), with the group's message and name from that same error — while the aggregate
 * counts, which name no one, stay; and every customer merged into the erased one is erased
 * alike (email, traits, events, report entries), so no search by email finds the person.
 */
import { conflictId, conflictRef, type ConflictRecord } from '../../functions/src/identity/conflictModel';
import { mergeConflict } from '../../functions/src/identity/conflicts';
import type { CustomerRecord } from '../../functions/src/customers/model';
import { customerRef } from '../../functions/src/customers/refs';
import { ERASED_ERROR_NAME } from '../../functions/src/store/rollups/erasure';
import { ERROR_GROUP_CUSTOMERS, ERROR_GROUPS } from '../../functions/src/store/rollups/errorGroupModel';
import { EnvScope } from '../../functions/src/store/scope';
import { createTestService, lockHeaders, seedProject, type SeededProject, type TestService } from '../support/harness';
import { postEvents } from '../events/support';
import { report } from './support';

let service: TestService;
let project: SeededProject;

beforeAll(async () => {
  service = createTestService();
  project = await seedProject(service);
});

it('drops the erased customer’s memberships and samples, keeps the counts', async () => {
  const crash = (eventId: string, user: string) => ({ eventId, name: 'js_error', level: 'error', developerUserId: user, properties: { message: 'boom', stack: `Error: boom for ${user}\n    at f (app:///a.js:1:1)` } });
  expect((await postEvents(service, project, { events: [crash('k1', 'keeper')] })).status).toBe(202);
  service.clock.advance(60_000);
  expect((await postEvents(service, project, { events: [crash('g1', 'leaver')] })).status).toBe(202);
  await service.tasks.drain();
  const secret = project.ios.test.secret;
  const [group] = (await report(service, secret, '/v1/reports/errors')).data;
  const before = await report(service, secret, `/v1/reports/errors/${group.fingerprint}`);
  expect(before.data.latestSample.rawStack).toContain('leaver');
  const leaver = before.data.latestSample.serviceCustomerId;

  const forget = await service.request().post('/v1/identity/forget').set('Authorization', `Bearer ${secret}`).send({ customerId: leaver });
  expect(forget.status).toBe(200);
  await service.tasks.drain();

  const after = await report(service, secret, `/v1/reports/errors/${group.fingerprint}`);
  expect(after.data).toMatchObject({ count: 2, customers: 2, latestSample: null });
  const memberships = await service.deps.db.collection(`projects/${project.projectId}/envs/test/${ERROR_GROUP_CUSTOMERS}`).get();
  expect(memberships.docs.map((d) => d.get('customerId'))).not.toContain(leaver);
  expect(memberships.size).toBe(1);
});

describe('nothing personal survives in the reports or in merged-away records', () => {
  const scope = () => new EnvScope(service.deps.db, project.projectId, 'test');
  const identify = (body: object) => service.request().post('/v1/identify').set({ Authorization: `Bearer ${project.web.test.publishable}`, ...lockHeaders('web') }).send(body);
  const forget = async (customerId: string) => {
    const res = await service.request().post('/v1/identity/forget').set('Authorization', `Bearer ${project.ios.test.secret}`).send({ customerId });
    expect(res.status).toBe(200);
    await service.tasks.drain();
  };

  it('an error group whose latest error was the erased person’s keeps neither its message nor its name', async () => {
    service.clock.advance(60_000);
    const declined = { eventId: 'victim-err-1', name: 'Card declined for victim@example.com', level: 'error', developerUserId: 'victim-user', properties: { message: 'Card declined for victim@example.com' } };
    expect((await postEvents(service, project, { events: [declined] })).status).toBe(202);
    await service.tasks.drain();
    const groups = await service.deps.db.collection(`projects/${project.projectId}/envs/test/${ERROR_GROUPS}`).get();
    const group = groups.docs.find((doc) => doc.get('message') === declined.properties.message)!;
    const victim = group.get('sampleCustomerId') as string;

    await forget(victim);
    const after = (await group.ref.get()).data()!;
    expect(JSON.stringify(after)).not.toContain('victim@example.com');
    expect(after).toMatchObject({ message: null, name: ERASED_ERROR_NAME, sample: null, sampleCustomerId: null });
    const listed = await report(service, project.ios.test.secret, '/v1/reports/errors');
    expect(JSON.stringify(listed)).not.toContain('victim@example.com');
  });

  it('a customer merged into the erased one loses its email, traits, events and report entries, and is not found by email', async () => {
    service.clock.advance(60_000);
    const away = (await identify({ userId: 'merged-away-user', anonymousId: 'merged-away-device', email: 'merged.victim@example.com', traits: { plan: 'pro', city: 'Lyon' } })).body.serviceCustomerId as string;
    const crash = { eventId: 'merged-err-1', name: 'js_error', level: 'error', developerUserId: 'merged-away-user', properties: { message: 'timeout in checkout' } };
    expect((await postEvents(service, project, { events: [crash] })).status).toBe(202);
    await service.tasks.drain();
    const canonical = (await identify({ userId: 'canonical-user', anonymousId: 'canonical-device' })).body.serviceCustomerId as string;
    const id = conflictId(scope(), [canonical, away]);
    const conflict: ConflictRecord = { conflictId: id, projectId: project.projectId, env: 'test', status: 'open', canonicalCustomerId: canonical, otherCustomerIds: [away], identities: [], createdAt: service.clock.now(), resolvedAt: null };
    await conflictRef(scope(), id).set(conflict);
    await mergeConflict(scope(), id, service.clock.now());
    expect((await customerRef(scope(), away).get()).data()).toMatchObject({ status: 'merged', mergedInto: canonical, email: 'merged.victim@example.com' });
    expect((await scope().collection('events').where('serviceCustomerId', '==', away).get()).size).toBeGreaterThan(0);

    await forget(canonical);
    const record = (await customerRef(scope(), away).get()).data() as CustomerRecord;
    expect(record).toMatchObject({ status: 'merged', mergedInto: canonical, email: null, traits: {} });
    // The dashboard's search by email runs exactly this query.
    expect((await scope().collection('customers').where('email', '==', 'merged.victim@example.com').get()).size).toBe(0);
    expect((await scope().collection('events').where('serviceCustomerId', '==', away).get()).size).toBe(0);
    expect((await scope().collection(ERROR_GROUP_CUSTOMERS).where('customerId', '==', away).get()).size).toBe(0);
    expect((await scope().collection(ERROR_GROUPS).where('sampleCustomerId', '==', away).get()).size).toBe(0);
    expect((await customerRef(scope(), canonical).get()).data()).toMatchObject({ status: 'erased', email: null, traits: {} });
  });
});
