/**
 * Guarantees of the operator's per-project telemetry retention (`tessera events retention`):
 * it validates its input, refuses unknown projects, and events received afterwards expire after
 * the project's days; `--default` returns the project to the deployment default.
 */
import { DAY } from '../../functions/src/clock';
import { COMMANDS } from '../../functions/src/cli/registry';
import { OperatorError } from '../../functions/src/cli/operatorError';
import { createTestService, seedProject, type SeededProject, type TestService } from '../support/harness';
import { event, postEvents, storedEvent } from './support';

const command = COMMANDS.find((c) => c.name === 'events retention')!;

let service: TestService;
let project: SeededProject;
beforeAll(async () => {
  service = createTestService();
  project = await seedProject(service);
});
afterAll(() => service.tasks.drain());

const run = (values: Record<string, string | boolean>) => command.run(values, { db: service.deps.db, clock: service.clock, stdin: async () => '' });

it('sets a project’s retention, which the next events’ TTL follows, and resets it to the default', async () => {
  expect(await run({ project: project.projectId, days: '30' })).toEqual({ projectId: project.projectId, telemetryRetentionDays: 30, source: 'project' });
  await postEvents(service, project, { events: [event({ eventId: 'ttl-30' })] });
  expect((await storedEvent(service, project.projectId, 'ttl-30'))?.expiresAt.toMillis()).toBe(service.clock.now() + 30 * DAY);

  const reset = (await run({ project: project.projectId, default: true })) as { telemetryRetentionDays: number };
  expect(reset.telemetryRetentionDays).toBe(service.deps.settings.telemetryRetentionDays);
  await postEvents(service, project, { events: [event({ eventId: 'ttl-reset' })] });
  expect((await storedEvent(service, project.projectId, 'ttl-reset'))?.expiresAt.toMillis()).toBe(service.clock.now() + service.deps.settings.telemetryRetentionDays * DAY);
});

it.each([
  [{ days: '0' }, 'invalid_argument'],
  [{ days: '2.5' }, 'invalid_argument'],
  [{ days: 'ten' }, 'invalid_argument'],
  [{ days: '7', default: true }, 'invalid_argument'],
  [{}, 'invalid_argument'],
])('rejects %p', async (values, code) => {
  await expect(run({ project: project.projectId, ...values })).rejects.toMatchObject({ code });
});

it('refuses an unknown project', async () => {
  const failure = run({ project: 'proj_unknown', days: '10' });
  await expect(failure).rejects.toBeInstanceOf(OperatorError);
  await expect(failure).rejects.toMatchObject({ code: 'not_found' });
});
