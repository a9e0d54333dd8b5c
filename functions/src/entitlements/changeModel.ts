import type { Timestamp } from 'firebase-admin/firestore';
import type { Env } from '../store/env';
import type { PublicEntitlement } from './model';
import type { Rail } from '../wire/vocabulary';

/**
 * `entitlementChanges/{customerId}:{sequence}`: one record per change of one key's public state,
 * written by `applyGrantChanges` (writer.ts) in the transaction that made the change, and one
 * per end that passed (`recordExpiries`). They are the history the dashboard shows and what
 * outbound webhook events are built from (the writer writes each record's event beside it,
 * webhooks/entitlementEvents.ts), so each carries everything a notification needs.
 */
export const ENTITLEMENT_CHANGES = 'entitlementChanges';

/** What made the change: a rail's event or an operator's act, and the audit entry recording it. */
export interface EntitlementCause {
  /** `expiry`: the key's `validUntil` passed without a renewal, recorded by the expiry worker (entitlements/expiry.ts). */
  kind: 'rail' | 'operator' | 'expiry';
  /** The rail of the event, `manual` for server grants and revokes, migration and merges. */
  rail: Rail;
  /** The audit entry's event id (`audit/{auditEventId}`), written in the same transaction. */
  auditEventId: string;
  /** The audit entry's event type (e.g. `entitlement.granted_manually`, a rail's event type). */
  eventType: string;
  /**
   * Set when the change takes access back on purpose: a manual revoke or a rail's revocation
   * (`revoked`), a rail's refund or lost dispute (`refunded`). Absent for everything else.
   * Outbound webhooks tell `entitlement.revoked` / `entitlement.refunded` from an expiry by it.
   */
  takenBack?: 'refunded' | 'revoked';
}

/** The cause `eventType` of a merge (identity/conflicts.ts): its changes are told by `customer.merged`. */
export const MERGE_EVENT_TYPE = 'customer.merged';

export interface EntitlementChange {
  changeId: string;
  projectId: string;
  env: Env;
  customerId: string;
  key: string;
  /** 1, 2, 3… per customer, without gaps; the projection keeps the last one (`changeSequence`). */
  sequence: number;
  /** The key's `PublicEntitlement` before and after (null: absent), as of `changedAt`. */
  before: PublicEntitlement | null;
  after: PublicEntitlement | null;
  cause: EntitlementCause;
  /** Unix milliseconds. */
  changedAt: number;
  /** Kept as long as the audit entry it cites (24 months), then removed by the TTL policy. */
  expiresAt: Timestamp;
}
