import { FieldValue, type DocumentReference, type DocumentSnapshot, type WriteBatch } from 'firebase-admin/firestore';
import { MINUTE } from '../clock';
import type { IngestedEventFields } from './model';
import type { EnvScope } from '../store/scope';
import { errorFields } from '../store/rollups/errorFields';
import {
  ERROR_GROUP_CUSTOMERS,
  ERROR_GROUP_SHARDS,
  ERROR_GROUPS,
  GROUP_SHARDS,
  groupCustomerId,
  errorGroupRef,
  groupShardId,
  type ErrorGroupDoc,
  type ErrorSample,
} from '../store/rollups/errorGroupModel';
import { recordEventCounts } from '../store/rollups/eventRollup';
import { shardOf } from '../store/rollups/shards';
import { splitGroups } from '../store/converters';

/** An event the identity-resolution task is about to store. */
export interface EventToStore {
  ref: DocumentReference;
  fields: IngestedEventFields;
  customerId: string | null;
}

/**
 * The rollups of the events one identity-resolution task stores (events/resolution.ts), in that
 * task's one commit: event counts and error groups, for events stored for the first time only.
 * One read (`read`) tells which events exist already (unless they are assumed new), the error groups they touch and which
 * affected customers each group already counts; the events the read found absent are then
 * created (`create`, not `set`), so if another task stored one meanwhile the whole commit fails
 * and the task runs again: nothing is counted twice, nothing is lost.
 */
export class StoredEventRollups {
  private constructor(
    private readonly existing: Set<string>,
    private readonly groups: Map<string, DocumentSnapshot<ErrorGroupDoc>>,
    private readonly customersCounted: Set<string>,
  ) {}

  /**
   * `eventsAssumedNew`: read only the error groups and memberships, and treat every event as new
   * (the caller then `create`s them all: if one exists after all, the commit fails with
   * ALREADY_EXISTS and the caller reads again without the assumption).
   */
  static async read(scope: EnvScope, events: readonly EventToStore[], options: { eventsAssumedNew?: boolean } = {}): Promise<StoredEventRollups> {
    const eventRefs = options.eventsAssumedNew ? [] : uniqueRefs(events.map((e) => e.ref));
    const errors = events.filter(isErrorEvent);
    const fingerprints = [...new Set(errors.map((e) => e.fields.fingerprint as string))];
    const memberships = [...new Set(errors.filter((e) => e.customerId).map((e) => groupCustomerId(e.fields.fingerprint as string, e.customerId as string)))];
    const groups = [eventRefs, fingerprints.map((fp) => errorGroupRef(scope, fp)), memberships.map((id) => scope.doc(ERROR_GROUP_CUSTOMERS, id))] as const;
    const [eventSnaps, groupSnaps, memberSnaps] = splitGroups(groups, await scope.getAll(...groups[0], ...groups[1], ...groups[2]));
    return new StoredEventRollups(
      new Set(eventSnaps.filter((s) => s.exists).map((s) => s.ref.path)),
      new Map(fingerprints.map((fp, i) => [fp, groupSnaps[i]])),
      new Set(memberships.filter((_, i) => memberSnaps[i].exists)),
    );
  }

  /** Whether the event's document existed when read (then it is written as before and not counted). */
  isStored(ref: DocumentReference): boolean {
    return this.existing.has(ref.path);
  }

  /**
   * Adds the counts of the events new to the store (`events` holds each document once) to the
   * commit. `shardKey`: the task's own key (its first batch id), so its retries hit one shard.
   */
  write(batch: WriteBatch, scope: EnvScope, shardKey: string, events: readonly EventToStore[]): void {
    const fresh = events.filter((e) => !this.isStored(e.ref));
    recordEventCounts(batch, scope, shardKey, fresh.map((e) => e.fields));
    const byFingerprint = new Map<string, EventToStore[]>();
    for (const event of fresh.filter(isErrorEvent)) {
      const fp = event.fields.fingerprint as string;
      const list = byFingerprint.get(fp) ?? [];
      list.push(event);
      byFingerprint.set(fp, list);
    }
    const shard = shardOf(shardKey, GROUP_SHARDS);
    for (const [fp, group] of byFingerprint) {
      const newCustomers = [...new Set(group.flatMap((e) => (e.customerId ? [e.customerId] : [])))].filter((id) => !this.customersCounted.has(groupCustomerId(fp, id)));
      for (const customerId of newCustomers) batch.create(scope.doc(ERROR_GROUP_CUSTOMERS, groupCustomerId(fp, customerId)), { fingerprint: fp, customerId });
      batch.set(
        scope.doc(ERROR_GROUP_SHARDS, groupShardId(fp, shard)),
        { fingerprint: fp, count: FieldValue.increment(group.length), customers: FieldValue.increment(newCustomers.length) },
        { merge: true },
      );
      this.writeGroup(batch, scope, fp, group);
    }
  }

  /** Creates the group, or moves its first/last seen and sample when a newer minute (or an earlier event) arrives. */
  private writeGroup(batch: WriteBatch, scope: EnvScope, fingerprint: string, events: EventToStore[]): void {
    const ordered = [...events].sort((a, b) => a.fields.timestamp - b.fields.timestamp);
    const earliest = ordered[0];
    const latest = ordered[ordered.length - 1];
    const snapshot = this.groups.get(fingerprint);
    const stored = snapshot?.data() ?? null;
    const latestFields = errorFields(latest.fields.properties, latest.fields.tags);
    if (!stored) {
      const doc: ErrorGroupDoc = {
        fingerprint,
        name: latest.fields.name,
        type: latestFields.type,
        message: latestFields.message,
        level: latest.fields.level as string,
        firstSeen: earliest.fields.timestamp,
        lastSeen: latest.fields.timestamp,
        lastRelease: latestFields.release,
        sample: sampleOf(latest),
        sampleCustomerId: latest.customerId,
      };
      batch.create(scope.doc(ERROR_GROUPS, fingerprint), doc);
      return;
    }
    const newerMinute = Math.floor(latest.fields.timestamp / MINUTE) > Math.floor(stored.lastSeen / MINUTE);
    const earlier = earliest.fields.timestamp < stored.firstSeen;
    if (!newerMinute && !earlier) return;
    const update: Partial<ErrorGroupDoc> = { firstSeen: Math.min(stored.firstSeen, earliest.fields.timestamp) };
    if (newerMinute) {
      Object.assign(update, {
        lastSeen: latest.fields.timestamp,
        level: latest.fields.level as string,
        lastRelease: latestFields.release,
        message: latestFields.message,
        sample: sampleOf(latest),
        sampleCustomerId: latest.customerId,
      });
    }
    // Conditional on the group as read: a concurrent rewrite fails this commit and the task retries.
    batch.update(snapshot!.ref, update, { lastUpdateTime: snapshot!.updateTime! });
  }
}

const isErrorEvent = (event: EventToStore): boolean => typeof event.fields.fingerprint === 'string' && event.fields.level !== null;

function uniqueRefs(refs: DocumentReference[]): DocumentReference[] {
  const seen = new Map<string, DocumentReference>();
  for (const ref of refs) seen.set(ref.path, ref);
  return [...seen.values()];
}

function sampleOf(event: EventToStore): ErrorSample {
  const fields = errorFields(event.fields.properties, event.fields.tags);
  return {
    eventId: event.fields.eventId,
    timestamp: event.fields.timestamp,
    level: event.fields.level as string,
    release: fields.release,
    message: fields.message,
    stack: fields.stack,
    serviceCustomerId: event.customerId,
  };
}
