import { EVENTS, type StoredEvent } from '../events/model';
import type { EnvScope } from '../store/scope';

/**
 * Error groups read straight from the events store: the newest error events of the partition,
 * grouped by their fingerprint (events/fingerprint.ts). Bounded to the newest
 * `ERROR_SCAN_LIMIT` error events; the reporting API (issue 14) will supply complete groups and
 * counts over a range, and the Errors page then reads those instead.
 */
export const ERROR_SCAN_LIMIT = 1000;

export interface ErrorGroup {
  fingerprint: string;
  name: string;
  message: string | null;
  count: number;
  firstSeen: number;
  lastSeen: number;
  releases: string[];
  sampleEventId: string;
}

export interface ErrorSample {
  fingerprint: string;
  eventId: string;
  name: string;
  message: string | null;
  timestamp: number;
  release: string | null;
  stack: string | null;
  appId: string;
  platform: string;
  customerId: string | null;
}

export async function errorGroups(scope: EnvScope): Promise<ErrorGroup[]> {
  const snapshot = await scope.query(scope.collection(EVENTS).where('level', '==', 'error').orderBy('timestamp', 'desc').limit(ERROR_SCAN_LIMIT));
  const groups = new Map<string, ErrorGroup>();
  for (const doc of snapshot.docs) {
    const event = doc.data() as StoredEvent;
    if (!event.fingerprint) continue;
    const details = errorDetails(event);
    const group = groups.get(event.fingerprint);
    if (!group) {
      groups.set(event.fingerprint, {
        fingerprint: event.fingerprint,
        name: event.name,
        message: details.message,
        count: 1,
        firstSeen: event.timestamp,
        lastSeen: event.timestamp,
        releases: details.release ? [details.release] : [],
        sampleEventId: event.eventId,
      });
      continue;
    }
    group.count += 1;
    group.firstSeen = Math.min(group.firstSeen, event.timestamp);
    if (event.timestamp > group.lastSeen) {
      group.lastSeen = event.timestamp;
      group.sampleEventId = event.eventId;
    }
    if (details.release && !group.releases.includes(details.release)) group.releases.push(details.release);
  }
  return [...groups.values()].sort((a, b) => b.lastSeen - a.lastSeen || a.fingerprint.localeCompare(b.fingerprint));
}

/** The newest error event of one fingerprint, with the stack and release its properties carry. */
export async function errorSample(scope: EnvScope, fingerprint: string): Promise<ErrorSample | null> {
  const snapshot = await scope.query(scope.collection(EVENTS).where('fingerprint', '==', fingerprint).limit(200));
  const newest = snapshot.docs.map((d) => d.data() as StoredEvent).sort((a, b) => b.timestamp - a.timestamp)[0];
  if (!newest) return null;
  const details = errorDetails(newest);
  return {
    fingerprint,
    eventId: newest.eventId,
    name: newest.name,
    message: details.message,
    timestamp: newest.timestamp,
    release: details.release,
    stack: details.stack,
    appId: newest.appId,
    platform: newest.platform,
    customerId: newest.serviceCustomerId ?? null,
  };
}

/** Message, stack and release as SDKs send them in `properties` (or the release as a tag). */
export function errorDetails(event: Pick<StoredEvent, 'properties' | 'tags'>): { message: string | null; stack: string | null; release: string | null } {
  let properties: Record<string, unknown> = {};
  try {
    const parsed: unknown = event.properties ? JSON.parse(event.properties) : {};
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) properties = parsed as Record<string, unknown>;
  } catch {
    // Stored properties are the client's JSON text; unreadable ones simply carry nothing here.
  }
  const pick = (paths: string[][]): string | null => {
    for (const path of paths) {
      let value: unknown = properties;
      for (const key of path) value = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
      if (typeof value === 'string' && value !== '') return value;
    }
    return null;
  };
  return {
    message: pick([['message'], ['errorMessage'], ['error', 'message'], ['exception', 'message']]),
    stack: pick([['stack'], ['stackTrace'], ['error', 'stack'], ['exception', 'stack'], ['exception', 'stacktrace']]),
    release: pick([['release']]) ?? event.tags?.release ?? null,
  };
}
