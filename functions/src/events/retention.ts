import type { DocumentSnapshot } from 'firebase-admin/firestore';
import { DAY } from '../clock';

/**
 * Telemetry retention: each project may set `telemetryRetentionDays` on its project document
 * (operator CLI: `tessera events retention --project ID --days N`); otherwise the deployment's
 * default applies (setting `TESSERA_TELEMETRY_RETENTION_DAYS`, 90 days when unset). An event
 * expires `retentionDays` after it was received, through the TTL policy on `events.expiresAt`.
 */
export const MAX_RETENTION_DAYS = 3650;

export function isRetentionDays(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) > 0 && (value as number) <= MAX_RETENTION_DAYS;
}

/** The project's own setting when valid, else the default. */
export function retentionDays(project: DocumentSnapshot | undefined, fallbackDays: number): number {
  const configured = project?.get('telemetryRetentionDays');
  return isRetentionDays(configured) ? configured : fallbackDays;
}

export const expiresAtMs = (receivedAt: number, days: number): number => receivedAt + days * DAY;
