import { storedRecord } from '../converters';
import type { EnvScope } from '../scope';

/**
 * Error groups, one per fingerprint (events/fingerprint.ts), under the partition:
 *
 * - `errorGroups/{fingerprint}` ErrorGroupDoc: what the list shows and orders by (`lastSeen`),
 *   and the latest sample. Rewritten at most once per minute per fingerprint (when a newer minute
 *   is seen), so an error storm never makes it a hot document; `lastSeen` and the sample are
 *   therefore exact to the minute.
 * - `errorGroupShards/{fingerprint}_{s}` `{count, customers}`: increments, one shard per stored
 *   batch (by its id), summed at read time.
 * - `errorGroupCustomers/{fingerprint}_{customerId}`: one per affected customer, created once, so
 *   `customers` counts each customer once however often it hits the error.
 *
 * Erasure of a customer (`reportErasureQueries`) deletes its memberships (the count stays: it
 * names no one) and drops the samples taken from its events.
 */
export const ERROR_GROUPS = 'errorGroups';
export const ERROR_GROUP_SHARDS = 'errorGroupShards';
export const ERROR_GROUP_CUSTOMERS = 'errorGroupCustomers';
export const GROUP_SHARDS = 4;

export interface ErrorSample {
  eventId: string;
  /** Unix ms (the event's timestamp). */
  timestamp: number;
  level: string;
  release: string | null;
  message: string | null;
  /** The stack trace as the client sent it (at most the 8 KB of `properties`). */
  stack: string | null;
  serviceCustomerId: string | null;
}

export interface ErrorGroupDoc {
  fingerprint: string;
  name: string;
  type: string | null;
  message: string | null;
  level: string;
  firstSeen: number;
  lastSeen: number;
  lastRelease: string | null;
  /** Null once the customer whose event it was is erased (identity/erasure.ts). */
  sample: ErrorSample | null;
  /** The sample's customer, top level so that erasure can find the groups (the sample is not indexed). */
  sampleCustomerId: string | null;
}

export interface ErrorGroupShard {
  fingerprint: string;
  count: number;
  customers: number;
}

export const groupShardId = (fingerprint: string, shard: number): string => `${fingerprint}_${shard}`;
export const groupCustomerId = (fingerprint: string, customerId: string): string => `${fingerprint}_${customerId}`;
export const errorGroupConverter = storedRecord<ErrorGroupDoc>();
export const errorGroupShardConverter = storedRecord<ErrorGroupShard>();

/** Typed references of the error groups and their count shards, inside the caller's partition. */
export const errorGroupRef = (scope: EnvScope, fingerprint: string) => scope.doc(ERROR_GROUPS, fingerprint).withConverter(errorGroupConverter);
export const errorGroupsCollection = (scope: EnvScope) => scope.collection(ERROR_GROUPS).withConverter(errorGroupConverter);
export const errorGroupShardRef = (scope: EnvScope, fingerprint: string, shard: number) => scope.doc(ERROR_GROUP_SHARDS, groupShardId(fingerprint, shard)).withConverter(errorGroupShardConverter);
