import { createHash } from 'node:crypto';
import { isEnv, type Env } from '../store/env';
import type { IdentityHints } from './model';

/**
 * The identity-resolution task of one landed batch: which stored events to resolve. The handler
 * reads the events themselves (their stored hints are authoritative), so the payload stays small.
 * (A type alias, not an interface, so that it is a queue payload record.)
 */
export type IdentityResolutionPayload = {
  projectId: string;
  env: Env;
  eventDocIds: string[];
};

export interface LandedForResolution {
  docId: string;
  hints: IdentityHints;
}

/**
 * Deterministic task id: the same events with the same hints give the same id, so a retried
 * batch enqueues nothing new (the queue de-duplicates), while an event re-sent with different
 * hints gets resolved again.
 */
export function identityResolutionTaskId(projectId: string, env: Env, landed: LandedForResolution[]): string {
  const hash = createHash('sha256').update(`${projectId}\n${env}`);
  for (const event of [...landed].sort((a, b) => (a.docId < b.docId ? -1 : a.docId > b.docId ? 1 : 0))) {
    const { developerUserId, anonymousId, serviceCustomerId } = event.hints;
    hash.update(`\n${event.docId}\u0000${developerUserId ?? ''}\u0000${anonymousId ?? ''}\u0000${serviceCustomerId ?? ''}`);
  }
  return `idres_${hash.digest('hex')}`;
}

export function identityResolutionPayload(projectId: string, env: Env, landed: LandedForResolution[]): IdentityResolutionPayload {
  return { projectId, env, eventDocIds: landed.map((event) => event.docId) };
}

/** Narrows a task payload; null when it is not one (the task is then dropped, not retried). */
export function parseIdentityResolutionPayload(payload: Record<string, unknown>): IdentityResolutionPayload | null {
  const { projectId, env, eventDocIds } = payload;
  if (typeof projectId !== 'string' || !/^[A-Za-z0-9_-]{1,128}$/.test(projectId)) return null;
  if (!isEnv(env)) return null;
  if (!Array.isArray(eventDocIds) || eventDocIds.length === 0 || eventDocIds.length > 500) return null;
  if (!eventDocIds.every((id) => typeof id === 'string' && /^e_[0-9a-f]{40}$/.test(id))) return null;
  return { projectId, env, eventDocIds: eventDocIds as string[] };
}
