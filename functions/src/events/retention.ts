import { FieldValue, type DocumentSnapshot, type Firestore } from 'firebase-admin/firestore';
import { DomainError } from '../errors/domain';
import { DAY } from '../clock';
import { projectRef } from '../projects/paths';

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

/** Operator action: sets a project's retention, or (null) returns it to the default. */
export async function setTelemetryRetention(db: Firestore, projectId: string, days: number | null): Promise<void> {
  if (days !== null && !isRetentionDays(days)) throw new DomainError('invalid_argument', `--days must be an integer from 1 to ${MAX_RETENTION_DAYS}.`);
  const ref = projectRef(db, projectId);
  await db.runTransaction(async (tx) => {
    const snapshot = await tx.get(ref);
    if (!snapshot.exists) throw new DomainError('not_found', `No project ${projectId}.`);
    tx.update(ref, { telemetryRetentionDays: days === null ? FieldValue.delete() : days });
  });
}
