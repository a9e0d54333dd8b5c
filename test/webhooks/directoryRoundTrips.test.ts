/**
 * Issue 23: the change's transaction reads the webhook directory beside its first read, so a
 * server grant and revoke cost the same store round trips as before it (counted at the store
 * edge, `X-Tessera-Round-Trips`), with an endpoint subscribed and with none.
 */
import { linkHints } from '../../functions/src/identity/repository';
import { EnvScope } from '../../functions/src/store/scope';
import { createTestService, seedProject, type SeededProject, type TestService } from '../support/harness';
import { createEndpoint } from './support/outbox';

/** What main counted for the same requests before the directory (f6d2582: 4 and 4, with and without an endpoint). */
const GRANT_ROUND_TRIPS = 4;
const REVOKE_ROUND_TRIPS = 4;

let service: TestService;
beforeAll(() => {
  service = createTestService({ settings: { exposeRoundTrips: true } });
});

async function roundTripsOf(project: SeededProject, action: 'grant' | 'revoke', customerId: string): Promise<number> {
  const body = action === 'grant' ? { entitlementKey: 'pro', duration: 'lifetime', reason: 'Round trips of a change with the directory' } : { entitlementKey: 'pro', reason: 'Round trips of a change with the directory' };
  const res = await service.request().post(`/v1/server/customers/${customerId}/${action}`).set('Authorization', `Bearer ${project.web.test.secret}`).send(body);
  expect(res.status).toBe(200);
  return Number(res.headers['x-tessera-round-trips']);
}

it.each([
  ['no endpoint', false],
  ['one subscribed endpoint', true],
])('grant and revoke: the same round trips as before the directory (%s)', async (_name, subscribed) => {
  const project = await seedProject(service);
  if (subscribed) await createEndpoint(service, project.projectId, 'test');
  const { customerId } = await linkHints(new EnvScope(service.deps.db, project.projectId, 'test'), [{ kind: 'developer', id: `user_${Math.random().toString(36).slice(2)}` }], 'self_asserted', service.clock.now());
  const counts = { grant: await roundTripsOf(project, 'grant', customerId!), revoke: await roundTripsOf(project, 'revoke', customerId!) };
  expect(counts).toEqual({ grant: GRANT_ROUND_TRIPS, revoke: REVOKE_ROUND_TRIPS });
});
