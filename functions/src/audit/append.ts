import { Timestamp, type Transaction } from 'firebase-admin/firestore';
import { randomToken } from '../ids/random';
import type { EnvScope } from '../store/scope';
import { SERVER_EVENT_ID_PREFIX } from '../ids';
import { AUDIT, auditEntryConverter, type AuditEntry } from './model';

/** Audit entries are kept 24 months, then removed by the TTL policy on `expiresAt`. */
export const AUDIT_RETENTION_MONTHS = 24;

/** What a caller supplies; the partition stamp and the expiry come from here. */
export type NewAuditEntry = Omit<AuditEntry, 'projectId' | 'env' | 'expiresAt'>;

/**
 * Appends one entry at `audit/{eventId}` in the caller's transaction, beside the change it
 * records. `create()` makes it append-only: a second write of the same event id fails the
 * whole transaction instead of overwriting history. Returns the stored entry.
 */
export function appendAudit(tx: Transaction, scope: EnvScope, entry: NewAuditEntry): AuditEntry {
  const stored: AuditEntry = {
    ...entry,
    projectId: scope.projectId,
    env: scope.env,
    expiresAt: Timestamp.fromMillis(auditExpiry(entry.processedAt)),
  };
  tx.create(auditRef(scope, entry.eventId), stripUndefined(stored));
  return stored;
}

export type ServerAuditAction = 'grant' | 'revoke' | 'migration' | 'webhook' | 'expiry' | 'key' | 'app' | 'operator' | 'conflict';

/** Event ids of server-originated entries: `srv_grant_<random>`, `srv_revoke_…`, `srv_migration_…`, `srv_webhook_…` (endpoint changes), `srv_expiry_…` (an end recorded), `srv_key_…`, `srv_app_…`, `srv_operator_…`, `srv_conflict_…` (operator changes). */
export function newServerEventId(action: ServerAuditAction): string {
  return `${SERVER_EVENT_ID_PREFIX}${action}_${randomToken(24)}`;
}

/** 24 calendar months after `ms` (UTC), clamped to the month's last day like any date library. */
export function auditExpiry(ms: number): number {
  const date = new Date(ms);
  const day = date.getUTCDate();
  date.setUTCDate(1);
  date.setUTCMonth(date.getUTCMonth() + AUDIT_RETENTION_MONTHS);
  const lastDay = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate();
  date.setUTCDate(Math.min(day, lastDay));
  return date.getTime();
}

export const auditRef = (scope: EnvScope, eventId: string) => scope.doc(AUDIT, eventId).withConverter(auditEntryConverter);
export const auditCollection = (scope: EnvScope) => scope.collection(AUDIT).withConverter(auditEntryConverter);

/** Firestore rejects `undefined` fields; optional fields that are absent are simply left out. */
function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
