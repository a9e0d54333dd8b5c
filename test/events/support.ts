import { eventDocId, type StoredEvent } from '../../functions/src/events/model';
import { storedEventConverter } from '../../functions/src/events/storedEventCodec';
import type { Env } from '../../functions/src/store/env';
import { lockHeaders, type SeededProject, type TestService } from '../support/harness';

/** Helpers shared by the events suites (not a suite itself). */

export interface EventInput {
  name?: string;
  eventId?: string;
  timestamp?: number;
  properties?: Record<string, unknown>;
  developerUserId?: string;
  anonymousId?: string;
  serviceCustomerId?: string;
  level?: unknown;
  tags?: unknown;
  categoryTags?: unknown;
  [extra: string]: unknown;
}

export const event = (overrides: EventInput = {}): EventInput => ({ name: 'screen_view', anonymousId: 'device-1', ...overrides });

/** `count` events with distinct event ids under `prefix`. */
export const events = (count: number, prefix: string, overrides: EventInput = {}): EventInput[] =>
  Array.from({ length: count }, (_, i) => event({ eventId: `${prefix}-${i}`, ...overrides }));

/** Posts a batch with the iOS publishable key of the given environment (lock headers included). */
export function postEvents(service: TestService, project: SeededProject, body: unknown, options: { env?: Env; headers?: Record<string, string> } = {}) {
  const key = project.ios[options.env ?? 'test'].publishable;
  return service
    .request()
    .post('/v1/events')
    .set({ Authorization: `Bearer ${key}`, ...lockHeaders('ios'), ...(options.headers ?? {}) })
    .send(body as object);
}

/**
 * Events are stored by the identity-resolution task of their batch: the readers below wait for
 * the service's queued tasks first, and read the events as the service does (packed or not,
 * storedEventCodec.ts).
 */
export async function storedEvents(service: TestService, projectId: string, env: Env = 'test'): Promise<StoredEvent[]> {
  await service.tasks.drain();
  const snapshot = await service.deps.db.collection(`projects/${projectId}/envs/${env}/events`).withConverter(storedEventConverter).get();
  return snapshot.docs.map((doc) => doc.data());
}

export async function storedEvent(service: TestService, projectId: string, eventId: string, env: Env = 'test'): Promise<StoredEvent | null> {
  await service.tasks.drain();
  const snapshot = await service.deps.db.doc(`projects/${projectId}/envs/${env}/events/${eventDocId(eventId)}`).withConverter(storedEventConverter).get();
  return snapshot.data() ?? null;
}
