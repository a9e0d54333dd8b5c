import { createHash } from 'node:crypto';
import { randomToken } from '../ids/random';
import { CUSTOMER_ID } from '../ids';
import { storedRecord } from '../store/converters';

/**
 * The customer model shared by every capability. All documents live under the key's
 * partition (`projects/{p}/envs/{env}/…`, see EnvScope):
 *
 * - `customers/{customerId}`                    CustomerRecord
 * - `identityIndex/{identityDocId(kind, id)}`   IdentityIndexEntry: one identifier → one customer.
 *   Uniqueness comes from the deterministic document id and `create()` in a transaction.
 *
 * Identity lookups are direct document reads by id, never queries.
 */

export type IdentityKind =
  | 'developer' // developer user id
  | 'anonymous' // anonymous device id
  | 'stripe' // Stripe customer id (cus_…)
  | 'apple_otx' // App Store originalTransactionId
  | 'apple_aat' // App Store appAccountToken (UUID)
  | 'google_token' // Play purchase token
  | 'google_account'; // Play obfuscatedExternalAccountId

export interface IdentityIndexEntry {
  kind: IdentityKind;
  id: string;
  customerId: string;
  /** `verified` when linked with a verified identity token; otherwise `self_asserted`. */
  assurance: 'verified' | 'self_asserted' | 'rail';
  createdAt: number;
  /** When the identifier was last linked or re-confirmed (identify, resolve, rail). */
  updatedAt?: number;
  /**
   * Anonymous (device) entries only: when a verified identity token was last presented for this
   * customer on this device (the trust-tier device binding; tier 2 lasts 90 days from here).
   */
  verifiedAt?: number | null;
  /** Developer entries only: times of the recent identify calls (the per-userId velocity cap). */
  recentIdentifies?: number[];
  /**
   * Anonymous entries only: the last time this device's binding moved away from another
   * developer user's customer (see deviceMoves.ts); each move is also in the audit log.
   */
  movedFrom?: { customerId: string; at: number };
}

export interface CustomerRecord {
  customerId: string;
  createdAt: number;
  updatedAt: number;
  email: string | null;
  traits: Record<string, string | number | boolean | null>;
  /** Identifiers linked to this customer, mirrored from the identity index. */
  identities: { kind: IdentityKind; id: string }[];
  /**
   * `erasure_pending` once a forget request is accepted; `erased` after the worker ran;
   * `merged` once an operator merged it into `mergedInto` (its identifiers and grants moved).
   */
  status: 'active' | 'erasure_pending' | 'erased' | 'merged';
  /** Set with status `merged`: the canonical customer that absorbed this one. */
  mergedInto?: string;
  /** Set by a forget request; `completedAt` once the erasure worker has run. */
  erasure?: ErasureState;
}

export interface ErasureState {
  requestedAt: number;
  /** The audit entry of the decision (one per customer, however often forget is repeated). */
  auditEventId: string;
  taskId: string;
  completedAt: number | null;
}

export const newCustomerId = (): string => `${CUSTOMER_ID.prefix}${randomToken(24)}`;

/**
 * Document id of an identifier in the identity index. Short, safe identifiers are kept
 * readable; anything long or with characters Firestore ids dislike is hashed.
 */
export function identityDocId(kind: IdentityKind, id: string): string {
  if (id.length <= 200 && /^[A-Za-z0-9_.:@-]+$/.test(id) && !/^__.*__$/.test(id)) return `${kind}:${id}`;
  return `${kind}#${createHash('sha256').update(id, 'utf8').digest('hex')}`;
}

export const CUSTOMERS = 'customers';
export const IDENTITY_INDEX = 'identityIndex';

export const customerConverter = storedRecord<CustomerRecord>();
export const identityEntryConverter = storedRecord<IdentityIndexEntry>();
