/**
 * Guarantee: erasing a customer removes what the reports hold about that person — its
 * error-group memberships and any group sample taken from its events (the detail then has no
 * sample) — while the aggregate counts, which name no one, stay.
 */
import { ERROR_GROUP_CUSTOMERS } from '../../functions/src/reports/errorGroupModel';
import { createTestService, seedProject, type SeededProject, type TestService } from '../support/harness';
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
