import type { Firestore } from 'firebase-admin/firestore';
import type { QueueName } from './queue';
import { storedRecord } from '../store/converters';

/**
 * A task of the in-process queue waiting for its time (a delayed enqueue, or a retry after its
 * backoff), kept in the store so that a restart of `npm start` runs it (Cloud Tasks keeps its
 * tasks the same way). `runAt` and `firstAttemptAt` are Unix milliseconds; `attempt` is the
 * attempt the next run makes (1-based).
 */
export interface PendingTask {
  key: string;
  queue: QueueName;
  id: string;
  payload: Record<string, unknown>;
  runAt: number;
  attempt: number;
  firstAttemptAt: number | null;
}

export interface PendingTaskStore {
  save(task: PendingTask): Promise<void>;
  remove(key: string): Promise<void>;
  loadAll(): Promise<PendingTask[]>;
}

/**
 * Local only: the in-process queue's waiting tasks at `localTaskQueue/{key}` in the local store
 * (never used deployed, where Cloud Tasks holds them). The key is the queue and the task id,
 * which the queue de-duplicates on, so a document per task.
 */
export const LOCAL_TASK_COLLECTION = 'localTaskQueue';

export class FirestorePendingTaskStore implements PendingTaskStore {
  constructor(private readonly db: Firestore) {}

  async save(task: PendingTask): Promise<void> {
    await this.db.collection(LOCAL_TASK_COLLECTION).doc(docId(task.key)).set(task);
  }

  async remove(key: string): Promise<void> {
    await this.db.collection(LOCAL_TASK_COLLECTION).doc(docId(key)).delete();
  }

  async loadAll(): Promise<PendingTask[]> {
    const snapshot = await this.db.collection(LOCAL_TASK_COLLECTION).withConverter(pendingTaskConverter).get();
    return snapshot.docs.map((doc) => doc.data());
  }
}

/** A document id from a `queue/taskId` key (a `/` would name a sub-collection). */
const docId = (key: string): string => key.replace(/\//g, ':');

export const pendingTaskConverter = storedRecord<PendingTask>();
