import { createHash } from 'node:crypto';
import type { Env } from '../store/env';
import { WEBHOOK_EVENT_ID } from '../ids';

/**
 * Event ids are derived, never drawn: the same source (an entitlement change record, a merge's
 * audit entry, an erasure's completion entry) always gives the same `evt_…`, so a retried
 * transaction or a second fan-out can never produce a second event for one change. The
 * partition is part of the hash: ids are unique across projects and environments, which the
 * delivery task ids (`{eventId}-{endpointId}`) and Cloud Tasks' de-duplication rely on.
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const ID_LENGTH = 24;

export function webhookEventId(partition: { projectId: string; env: Env }, source: string): string {
  const digest = createHash('sha256').update(`${partition.projectId}/${partition.env}/${source}`).digest();
  let out = '';
  // 24 of the digest's 32 bytes, each to one of 62 letters and digits (~142 bits; the slight bias is irrelevant for an id).
  for (let i = 0; i < ID_LENGTH; i += 1) out += ALPHABET[digest[i] % ALPHABET.length];
  return `${WEBHOOK_EVENT_ID.prefix}${out}`;
}
