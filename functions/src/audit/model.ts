import type { Env } from '../store/env';
import type { Rail } from '../wire/vocabulary';
import { storedRecord } from '../store/converters';

/**
 * Append-only audit log at `projects/{p}/envs/{env}/audit/{eventId}`: one entry per
 * entitlement decision, written with `create()` in the same transaction as the change it
 * records. No code path updates or deletes an entry; a TTL policy on `expiresAt` removes it
 * after 24 months.
 */
export interface AuditEntry {
  eventId: string;
  rail: Rail;
  env: Env;
  eventType: string;
  projectId: string;
  customerId: string | null;
  subscriptionId: string | null;
  decision: 'applied' | 'no_op' | 'rejected';
  reason: string;
  fromState: string | null;
  toState: string | null;
  signatureVerified: boolean;
  reconciledWithProvider: boolean;
  rawEventReceivedAt: number;
  processedAt: number;
  /** TTL field (a Firestore Timestamp in storage). */
  expiresAt?: unknown;
  /** Free-form extra context (entitlement key, request id, operator surface). */
  details?: Record<string, unknown>;
}

export const AUDIT = 'audit';

export const auditEntryConverter = storedRecord<AuditEntry>();
