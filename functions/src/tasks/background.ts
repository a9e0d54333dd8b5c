import type { Firestore } from 'firebase-admin/firestore';
import type { Clock } from '../clock';
import type { TaskQueue } from './queue';

/**
 * What background work is given (task handlers, the scheduled sweeps): the process's unscoped
 * Firestore handle, to establish each scope from a task payload or a partition it sweeps, the
 * clock, and the queue for the work it hands on. Never a request handler's: a handler reaches
 * data only through its request's scope (test/foundation/partition.test.ts lists who may name it).
 */
export interface BackgroundDeps {
  db: Firestore;
  clock: Clock;
  tasks: TaskQueue;
}
