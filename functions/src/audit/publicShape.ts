import type { PublicAuditEntry } from '../wire/entitlements';
import { toWireEnv } from '../store/env';
import type { AuditEntry } from './model';

/**
 * The `data` of `GET /v1/server/audit/{eventId}`: the spec's fields (`eventId`, `rail`, `env`
 * as a wire value, `eventType`, `projectId`, `customerId`, `decision`, `reason`) and the ones
 * decisions.md adds. Times are Unix ms; `expiresAt` is when the TTL policy removes the entry.
 */
export function toPublicAuditEntry(entry: AuditEntry): PublicAuditEntry {
  return {
    eventId: entry.eventId,
    rail: entry.rail,
    env: toWireEnv(entry.env),
    eventType: entry.eventType,
    projectId: entry.projectId,
    customerId: entry.customerId,
    subscriptionId: entry.subscriptionId,
    decision: entry.decision,
    reason: entry.reason,
    fromState: entry.fromState,
    toState: entry.toState,
    signatureVerified: entry.signatureVerified,
    reconciledWithProvider: entry.reconciledWithProvider,
    rawEventReceivedAt: entry.rawEventReceivedAt,
    processedAt: entry.processedAt,
    expiresAt: expiresAtMs(entry.expiresAt),
    details: entry.details ?? {},
  };
}

function expiresAtMs(value: unknown): number | null {
  if (value && typeof (value as { toMillis?: unknown }).toMillis === 'function') return (value as { toMillis(): number }).toMillis();
  return typeof value === 'number' ? value : null;
}
