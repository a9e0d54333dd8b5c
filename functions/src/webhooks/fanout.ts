import type { BackgroundDeps } from '../tasks/background';
import { EnvScope } from '../store/scope';
import type { TaskQueue } from '../tasks/queue';
import { SECOND } from '../clock';
import { isFanoutPayload, snapshotOf, type FanoutSnapshot } from './dispatch';
import type { WebhookEventRecord } from './eventModel';
import { TEST_EVENT_TYPE, type DeliveryTarget, type WebhookEndpointRecord } from './model';
import { outboxLogs } from './outboxLogs';
import { outboxRecord, webhookEventRef } from './outbox';
import { endpointsCollection } from './endpoints';
import { directoryOf, ensureDirectory, webhookDirectoryRef } from './directory';
import { deliverFirstAttempts, enqueueDeliveryTask, type FanoutDeps, type FirstAttemptReport } from './firstAttempts';

/**
 * Fan-out: every endpoint an event goes to gets its delivery — the fan-out task makes the first
 * attempts itself (firstAttempts.ts) and leaves what is not finished to `webhookDelivery` tasks
 * with the deterministic id `{eventId}-{endpointId}`; the relay only enqueues those tasks. Then
 * `fannedOutAt` on the event. Endpoints are listed from the event's own partition only: a test
 * environment's event never reaches a live endpoint, nor one project's event another's.
 */

/**
 * The endpoints an event goes to: the one it names (`webhook.test`, whatever its filter), else
 * every enabled endpoint subscribed to its type (an empty filter is every type).
 */
export function endpointsFor(event: Pick<WebhookEventRecord, 'type' | 'endpointId' | 'projectId' | 'env'>, endpoints: readonly WebhookEndpointRecord[]): WebhookEndpointRecord[] {
  const own = endpoints.filter((e) => e.projectId === event.projectId && e.env === event.env);
  if (event.endpointId !== null) return own.filter((e) => e.endpointId === event.endpointId);
  if (event.type === TEST_EVENT_TYPE) return [];
  return own.filter((e) => e.disabled === null && (e.eventTypes.length === 0 || (e.eventTypes as string[]).includes(event.type)));
}

export async function listEndpoints(scope: EnvScope): Promise<WebhookEndpointRecord[]> {
  const snapshot = await scope.query(endpointsCollection(scope));
  return snapshot.docs.map((d) => d.data());
}

/**
 * The relay's fan-out: enqueues the event's deliveries (concurrently, deterministic ids) and marks
 * it fanned out. Throws (to be retried) when an enqueue fails.
 */
export async function fanOut(scope: EnvScope, tasks: TaskQueue, event: WebhookEventRecord, endpoints: readonly WebhookEndpointRecord[], now: number): Promise<number> {
  const targets = endpointsFor(event, endpoints);
  await Promise.all(targets.map((endpoint) => enqueueDeliveryTask(tasks, scope, event.eventId, endpoint.endpointId)));
  await markFannedOut(scope, event, targets.length, now);
  return targets.length;
}

async function markFannedOut(scope: EnvScope, event: Pick<WebhookEventRecord, 'eventId' | 'type'>, targets: number, now: number, firstAttempts?: FirstAttemptReport): Promise<void> {
  await scope.commit(scope.batch().update(webhookEventRef(scope, event.eventId), { fannedOutAt: now }));
  outboxLogs.fannedOut(scope.projectId, scope.env, event.eventId, event.type, targets, firstAttempts);
}

export type FanoutOutcome = 'fanned_out' | 'already_fanned_out' | 'no_event';

/**
 * The fan-out task: reads the event (with the partition's directory) and lists the partition's
 * endpoints concurrently, makes the first attempt of each delivery itself (firstAttempts.ts), and
 * marks the event fanned out only once every delivery is finished or has its task — until then a
 * crash is retried by the queue or relayed. Nothing is done for an event that is gone or already
 * fanned out. In a partition with no directory yet, it then builds it (directory.ts), so that the
 * partition's later events nobody is subscribed to skip their fan-out.
 */
export async function fanOutEvent(scope: EnvScope, deps: FanoutDeps, eventId: string): Promise<FanoutOutcome> {
  const [[snapshot, guard], endpoints] = await Promise.all([scope.getAll(webhookEventRef(scope, eventId), webhookDirectoryRef(scope)), listEndpoints(scope)]);
  // Not there: expired by its TTL, or the recording transaction never committed (an id is only ever written with its change).
  if (!snapshot.exists) return 'no_event';
  const event = snapshot.data()!;
  if (event.fannedOutAt !== null) return 'already_fanned_out';
  const targets = endpointsFor(event, endpoints);
  const firstAttempts = await deliverFirstAttempts(scope, deps, event, targets);
  await markFannedOut(scope, event, targets.length, deps.clock.now(), firstAttempts);
  if (directoryOf(guard) === null) await buildDirectory(scope, deps.clock.now());
  return 'fanned_out';
}

/** Best effort: the event is fanned out whatever happens here; a failure leaves the next fan-out to build it. */
async function buildDirectory(scope: EnvScope, now: number): Promise<void> {
  try {
    const built = await ensureDirectory(scope, now);
    if (built) outboxLogs.directoryBuilt(scope.projectId, scope.env, built.endpoints);
  } catch (err) {
    outboxLogs.directoryNotBuilt(scope.projectId, scope.env, err instanceof Error ? err.message : String(err));
  }
}

/**
 * How long after its change a fan-out task may still trust the change's snapshot of the
 * directory: beyond it (a queue backlog, a retry after a crash) it reads the event and the
 * endpoints as they are now.
 */
export const FANOUT_SNAPSHOT_MAX_AGE_MS = 5 * SECOND;

/**
 * The fan-out of a task that carries its change's snapshot (dispatch.ts): the targets the
 * directory named in the change's own transaction, and the event's payload, so the first
 * attempts are claimed at once — one store round trip before the POSTs instead of two. Claims,
 * crash safety and `fannedOutAt` are the read path's (firstAttempts.ts): a delivery whose record
 * exists (a second run, the relay) is left to its task, and the event is marked fanned out last.
 */
async function fanOutFromSnapshot(scope: EnvScope, deps: FanoutDeps, snapshot: FanoutSnapshot): Promise<void> {
  const { payload } = snapshot;
  const event: WebhookEventRecord = { ...outboxRecord(scope, payload.id, payload.type, payload.created, payload.data), payload };
  const targets: DeliveryTarget[] = snapshot.targets.map((entry) => ({ ...entry, projectId: scope.projectId, env: scope.env, disabled: null }));
  const firstAttempts = await deliverFirstAttempts(scope, deps, event, targets);
  await markFannedOut(scope, event, targets.length, deps.clock.now(), firstAttempts);
}

/** The `webhookFanout` queue's handler: a malformed payload is dropped (retrying cannot fix it). */
export async function webhookFanoutHandler(payload: Record<string, unknown>, deps: BackgroundDeps & FanoutDeps): Promise<void> {
  if (!isFanoutPayload(payload)) return;
  const scope = new EnvScope(deps.db, payload.projectId, payload.env);
  const snapshot = snapshotOf(payload);
  if (snapshot && deps.clock.now() - snapshot.payload.created <= FANOUT_SNAPSHOT_MAX_AGE_MS) return fanOutFromSnapshot(scope, deps, snapshot);
  await fanOutEvent(scope, deps, payload.eventId);
}
