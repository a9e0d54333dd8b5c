import { createHash } from 'node:crypto';
import { isEnv, type Env } from '../store/env';
import { BATCH_DOC_ID_PATTERN } from './model';
import { PROJECT_ID } from '../ids';

/**
 * The identity-resolution task of some pending batch documents of one partition: which batches
 * to store. The handler reads the batches themselves, so the payload stays small.
 *
 * A landing's task is sent BESIDE its commit, so it may run before its batches are visible: it
 * names the landings it stands for (`requestIds`, each written in its batch documents as
 * `requestId`) and when their commits had all been sent (`sentAt`, Unix ms), and the handler
 * waits for exactly those copies until LANDING_VISIBLE_WITHIN_MS after `sentAt`
 * (events/README.md, "Identity resolution"). The retention sweep's tasks, and the previous
 * release's (enqueued after the commit), name batch ids only: they store whatever is there.
 * (A type alias, not an interface, so that it is a queue payload record.)
 */
export type IdentityResolutionPayload = {
  projectId: string;
  env: Env;
  batchDocIds: string[];
  requestIds?: string[];
  sentAt?: number;
};

/**
 * Most batch documents one task takes: a batch holds at most 100 events, and the task stores
 * them and removes the batches in one commit (at most 500 writes). A landing needs one (two for
 * a nearly incompressible 1 MiB body); landings of a partition sent together share tasks up to
 * this (landingTasks.ts), and the retention sweep groups stale batches by it.
 */
export const MAX_BATCHES_PER_TASK = 4;

/**
 * Most landings one task stands for: each brings at least one batch of its own, except a retry
 * landing the same batch in the same turn as its first attempt (landingTasks.ts caps the extra).
 */
export const MAX_LANDINGS_PER_TASK = 2 * MAX_BATCHES_PER_TASK;

/**
 * How long after `sentAt` a landing's commit may still become visible: the commit's own RPC
 * deadline (60 s in the Firestore client, retries included; the events function's request
 * deadline is 60 s too) plus 5 s for the clocks of two instances. Until then a task whose
 * landings' copies are not all visible asks to be retried (the queue's backoff: 10, 20, 40 s, so
 * its fourth attempt, at ~70 s, is past it); after it the commit has failed for good.
 */
export const LANDING_VISIBLE_WITHIN_MS = 65_000;

/** A parsed task: its batches and, for a landing's task, the landings whose copies it waits for. */
export interface IdentityResolutionTask {
  projectId: string;
  env: Env;
  batchDocIds: string[];
  /** Null for the sweep's (and the previous release's) tasks: nothing to wait for. */
  landings: { requestIds: ReadonlySet<string>; sentAt: number } | null;
}

/**
 * The task of landings whose commits are being sent: its id hashes the partition, the batches
 * and the landings' request ids, so enqueueing the same landings twice is de-duplicated, while
 * a retry that lands the same batch again (a new request) gets a task of its own, since the first
 * may already have stored and removed the earlier copy.
 */
export function landingResolutionTask(projectId: string, env: Env, batchDocIds: readonly string[], requestIds: readonly string[], sentAt: number): { id: string; payload: IdentityResolutionPayload } {
  return {
    id: taskId(projectId, env, batchDocIds, requestIds),
    payload: { projectId, env, batchDocIds: [...batchDocIds], requestIds: [...requestIds], sentAt },
  };
}

/** The retention sweep's task of batches still pending at `sweptAt`: a batch still stuck at a later sweep is enqueued again. */
export function sweepResolutionTask(projectId: string, env: Env, batchDocIds: readonly string[], sweptAt: number): { id: string; payload: IdentityResolutionPayload } {
  return { id: taskId(projectId, env, batchDocIds, [`sweep-${sweptAt}`]), payload: { projectId, env, batchDocIds: [...batchDocIds] } };
}

function taskId(projectId: string, env: Env, batchDocIds: readonly string[], origins: readonly string[]): string {
  const hash = createHash('sha256').update(`${projectId}\n${env}`);
  for (const id of [...batchDocIds].sort()) hash.update(`\n${id}`);
  hash.update('\n@');
  for (const origin of [...origins].sort()) hash.update(`\n${origin}`);
  return `idres_${hash.digest('hex')}`;
}

const REQUEST_ID = /^req_[A-Za-z0-9_-]{1,64}$/;

/** Narrows a task payload; null when it is not one (the task is then dropped, not retried). */
export function parseIdentityResolutionPayload(payload: Record<string, unknown>): IdentityResolutionTask | null {
  const { projectId, env, batchDocIds, requestIds, sentAt } = payload;
  if (!PROJECT_ID.is(projectId)) return null;
  if (!isEnv(env)) return null;
  if (!Array.isArray(batchDocIds) || batchDocIds.length === 0 || batchDocIds.length > MAX_BATCHES_PER_TASK) return null;
  if (!batchDocIds.every((id) => typeof id === 'string' && BATCH_DOC_ID_PATTERN.test(id))) return null;
  const task = { projectId, env, batchDocIds: batchDocIds as string[] };
  if (requestIds === undefined && sentAt === undefined) return { ...task, landings: null };
  if (!Array.isArray(requestIds) || requestIds.length === 0 || requestIds.length > MAX_LANDINGS_PER_TASK) return null;
  if (!requestIds.every((id) => typeof id === 'string' && REQUEST_ID.test(id))) return null;
  if (typeof sentAt !== 'number' || !Number.isSafeInteger(sentAt) || sentAt <= 0) return null;
  return { ...task, landings: { requestIds: new Set(requestIds as string[]), sentAt } };
}
