import type { DocumentSnapshot } from 'firebase-admin/firestore';
import type { Clock } from '../clock';
import type { EnvScope } from '../store/scope';
import { RetryLaterError } from '../tasks/queue';
import type { LandedBatch } from './model';
import { batchRef } from './repository';
import { LANDING_VISIBLE_WITHIN_MS, type IdentityResolutionTask } from './resolutionTask';

/**
 * A landing this recent may still have its commit in flight (the task was sent beside it): the
 * task reads again after these short pauses (~0.6 s in all) before asking the queue for a retry,
 * whose first backoff is 10 s. The commit it waits for was sent before the task was enqueued,
 * so it is usually visible at the first read, otherwise within these re-reads.
 */
const FRESH_LANDING_MS = 2_000;
const RE_READ_AFTER_MS = [10, 20, 40, 80, 160, 320];

/**
 * The named batch documents a task is to store (those that exist). A landing's task (one that
 * names its landings) stores nothing until every batch it names holds one of its landings' copies
 * (`requestId`): a batch missing or holding another landing's copy may be its own commit not
 * visible yet, and the task cannot tell that from a commit that failed or a copy already stored by
 * another task. So, until LANDING_VISIBLE_WITHIN_MS after the landings were sent, it re-reads (a
 * fresh landing) and then throws a RetryLaterError (the queue retries with its backoff); after
 * that bound no commit of those landings can appear any more, and it stores whatever of its
 * batches is there, as the sweep's and the previous release's tasks always do.
 */
export async function readTaskBatches(scope: EnvScope, task: IdentityResolutionTask, clock: Clock): Promise<DocumentSnapshot<LandedBatch>[]> {
  const refs = task.batchDocIds.map((id) => batchRef(scope, id));
  for (let reRead = 0; ; reRead += 1) {
    const snapshots = await scope.getAll(...refs);
    const present = snapshots.filter((snapshot) => snapshot.exists);
    const { landings } = task;
    if (!landings) return present;
    const notYours = snapshots.filter((snapshot) => !snapshot.exists || !landings.requestIds.has(snapshot.get('requestId')));
    if (notYours.length === 0) return present;
    const since = clock.now() - landings.sentAt;
    if (since >= LANDING_VISIBLE_WITHIN_MS) return present;
    if (since < FRESH_LANDING_MS && reRead < RE_READ_AFTER_MS.length) {
      await new Promise((resolve) => setTimeout(resolve, RE_READ_AFTER_MS[reRead]));
      continue;
    }
    throw new RetryLaterError(`${notYours.length} of ${refs.length} batches not visible with their landing's copy yet (sent ${since} ms ago)`);
  }
}
