import { KeyedQueue } from './keyedQueue';
import type { EnvScope } from './scope';

/**
 * The one per-instance queue every writer of a customer's state takes around its transaction:
 * manual grants and revokes, rail decisions, identify / link, migration rows and merges.
 *
 * Why: transactions on the same documents that race read them under shared locks and then all
 * wait upgrading to write locks until the store aborts some (20 concurrent grants to one
 * customer took 10–12 s each on the emulator, and some answered `ABORTED: Transaction lock
 * timeout`). Queued on the instance, they commit one after another in tens of milliseconds. In
 * production the store's transaction still decides between instances — this queue never
 * guarantees exclusion — but it also spares the aborted attempts there, each of which costs
 * billed reads and round trips before it is retried.
 *
 * Callers name every key they need in ONE `run` (see KeyedQueue: arrival order, so no lock
 * ordering is needed). Never hold a key across a call to a rail's API or any other outbound
 * request: read from the provider first, then queue for the store work.
 */
export const MAX_WAITING_PER_KEY = 50;

export const writeQueue = new KeyedQueue({ maxWaiting: MAX_WAITING_PER_KEY });

/** The queue keys of one partition's documents, by what they stand for. */
export const writeKeys = {
  customer: (scope: EnvScope, customerId: string): string => `${scope.rootPath}/customer/${customerId}`,
  /** An identity-index entry (`identityDocId(kind, id)`). */
  identity: (scope: EnvScope, identityDocId: string): string => `${scope.rootPath}/identity/${identityDocId}`,
  subscription: (scope: EnvScope, docId: string): string => `${scope.rootPath}/subscription/${docId}`,
  event: (scope: EnvScope, eventId: string): string => `${scope.rootPath}/event/${eventId}`,
};

/** Runs `fn` in turn with the other writers of these customers on this instance. */
export const inCustomerTurn = <T>(scope: EnvScope, customerIds: readonly string[], fn: () => Promise<T>): Promise<T> =>
  writeQueue.run(
    customerIds.map((id) => writeKeys.customer(scope, id)),
    fn,
  );
