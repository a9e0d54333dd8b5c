import { createHash } from 'node:crypto';
import type { Timestamp } from 'firebase-admin/firestore';
import { isEnv, type Env } from '../store/env';
import { BATCH_DOC_ID_PATTERN } from './model';
import { PROJECT_ID } from '../ids';

/**
 * The identity-resolution task of one landing: which pending batch documents to store. The
 * handler reads the batches themselves, so the payload stays small.
 * (A type alias, not an interface, so that it is a queue payload record.)
 */
export type IdentityResolutionPayload = {
  projectId: string;
  env: Env;
  batchDocIds: string[];
};

/**
 * Most batch documents one task takes: a batch holds at most 100 events, and the task stores
 * them and removes the batches in one commit (at most 500 writes). A landing needs one (two for
 * a nearly incompressible 1 MiB body); landings of a partition whose commits complete together
 * share tasks up to this (landingTasks.ts), and the retention sweep groups stale batches by it.
 */
export const MAX_BATCHES_PER_TASK = 4;

/** A landed batch document a task is to store, and when it was written (its commit time, or a sweep's mark). */
export interface PendingBatch {
  batchDocId: string;
  landedAt: Timestamp | string;
}

/**
 * The task of some pending batches of one partition. Its id hashes each batch document with the
 * time it was written: enqueueing the same landings twice is de-duplicated, while a retried batch
 * that lands again (a new write of the same document) gets its own task, since the first task may
 * already have stored and removed the earlier copy.
 */
export function identityResolutionTask(projectId: string, env: Env, batches: readonly PendingBatch[]): { id: string; payload: IdentityResolutionPayload } {
  const hash = createHash('sha256').update(`${projectId}\n${env}`);
  const versioned = batches.map(({ batchDocId, landedAt }) => `${batchDocId}@${typeof landedAt === 'string' ? landedAt : `${landedAt.seconds}.${landedAt.nanoseconds}`}`);
  for (const batch of versioned.sort()) hash.update(`\n${batch}`);
  return { id: `idres_${hash.digest('hex')}`, payload: { projectId, env, batchDocIds: batches.map((batch) => batch.batchDocId) } };
}

/** Narrows a task payload; null when it is not one (the task is then dropped, not retried). */
export function parseIdentityResolutionPayload(payload: Record<string, unknown>): IdentityResolutionPayload | null {
  const { projectId, env, batchDocIds } = payload;
  if (!PROJECT_ID.is(projectId)) return null;
  if (!isEnv(env)) return null;
  if (!Array.isArray(batchDocIds) || batchDocIds.length === 0 || batchDocIds.length > MAX_BATCHES_PER_TASK) return null;
  if (!batchDocIds.every((id) => typeof id === 'string' && BATCH_DOC_ID_PATTERN.test(id))) return null;
  return { projectId, env, batchDocIds: batchDocIds as string[] };
}
