import type { Rail } from '../wire/vocabulary';
import { storedRecord } from '../store/converters';
/**
 * The entitlement model shared by grants, rails and reads. Under the key's partition:
 *
 * - `grants/{grantId}`           GrantRecord: one source granting one entitlement key to one
 *                                customer (a manual grant, a migration grant, a rail subscription).
 * - `projections/{customerId}`   ProjectionDoc: the customer's entitlements, materialised from the
 *                                grants in the same transaction as every change, so a read is one
 *                                document read.
 * - `entitlementChanges/{id}`    EntitlementChange (changeModel.ts): one per change of a key's
 *                                public state; the outbox of outbound webhooks.
 *
 * All three are written only by `applyGrantChanges` (writer.ts).
 *
 * Times are Unix milliseconds in storage; the public shape converts to seconds.
 */

export interface EntitlementSource {
  rail: Rail;
  productId: string;
  subscriptionId: string;
}

export interface GrantRecord {
  grantId: string;
  customerId: string;
  entitlementKey: string;
  source: EntitlementSource;
  /** null: lifetime. */
  validUntil: number | null;
  /** Set when revoked (manual) or ended by the rail (refund, revocation). */
  revokedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface ProjectedEntitlement {
  key: string;
  validUntil: number | null;
  source: EntitlementSource;
  updatedAt: number;
}

export interface ProjectionDoc {
  customerId: string;
  entitlements: Record<string, ProjectedEntitlement>;
  updatedAt: number;
  /**
   * The sequence number of the customer's last entitlement change record (0 or absent: none
   * yet). Kept here because every change reads this document anyway: numbering costs no read.
   */
  changeSequence?: number;
  /**
   * Keys whose end has not been recorded yet, with that end (key → validUntil, Unix ms): every
   * key that was active when the writer last wrote this document and has an end. The expiry
   * worker records each as `entitlement.expired` once it passes (entitlements/expiry.ts).
   * Absent on documents written before expiries were recorded: nothing of theirs is pending.
   */
  pendingExpiries?: Record<string, number>;
  /** The earliest of `pendingExpiries`, null when none: the expiry worker's indexed query. */
  nextExpiryAt?: number | null;
  /** What the dashboard's customer list filters on (listFacets.ts); absent on documents not rewritten since. */
  listFacets?: string[];
}

/** The frozen public shape (`PublicEntitlement`). */
export interface PublicEntitlement {
  object: 'entitlement';
  key: string;
  isActive: boolean;
  validUntil: number | null;
  source: EntitlementSource;
  updatedAt: number;
}

export const GRANTS = 'grants';
export const PROJECTIONS = 'projections';

export const grantConverter = storedRecord<GrantRecord>();
export const projectionConverter = storedRecord<ProjectionDoc>();
