import type { Platform } from '../wire/vocabulary';
import type { Env } from '../store/env';
import { DomainError } from '../errors/domain';
import type { KeyKind } from './format';
import { storedRecord } from '../store/converters';
import type { Timestamp } from 'firebase-admin/firestore';


/**
 * One API key as stored in the key index (`publishableKeys/{key}` or `secretKeys/{sha256}`).
 * The binding (project, app, environment, kind) never changes; the rest is mutable state that
 * the key gate re-reads on every request. App and project facts the pipeline needs (platform
 * locks, archive flags) are copied here so that authentication is a single document read.
 */
export interface KeyRecord {
  keyId: string;
  kind: KeyKind;
  env: Env;
  projectId: string;
  appId: string;
  platform: Platform;
  /** Publishable keys: the key itself. Secret keys: the masked prefix only. */
  display: string;
  /** Secret keys: SHA-256 of the plaintext, compared in constant time after lookup. */
  hash: string | null;
  status: 'active' | 'revoked';
  createdAt: number;
  revokedAt: number | null;
  /** Set when rotated out: the key keeps working until then (ms). */
  graceEndsAt: number | null;
  rotatedToKeyId: string | null;
  scopes: string[];
  allowedOrigins: string[];
  bundleId: string | null;
  packageName: string | null;
  appArchived: boolean;
  projectArchived: boolean;
}

export type KeyState = 'active' | 'grace' | 'expired' | 'revoked' | 'archived';

export function keyState(record: KeyRecord, now: number): KeyState {
  if (record.status === 'revoked') return 'revoked';
  if (record.appArchived || record.projectArchived) return 'archived';
  if (record.graceEndsAt !== null) return now < record.graceEndsAt ? 'grace' : 'expired';
  return 'active';
}

/** The error a request presenting this key gets, or null when the key admits it. */
export function keyRejection(record: KeyRecord, now: number): DomainError | null {
  switch (keyState(record, now)) {
    case 'revoked':
      return new DomainError('key_revoked', 'This API key has been revoked.');
    case 'expired':
      return new DomainError('invalid_api_key', 'This API key was rotated out and its grace period has ended.');
    case 'archived':
      return new DomainError('invalid_api_key', 'This API key belongs to an archived app or project.');
    default:
      return null;
  }
}

export const keyRecordConverter = storedRecord<KeyRecord>();

/** An entry of an app's key journal (`apps/{appId}/keyActivity`), ordered by its commit time. */
export interface KeyActivity {
  action: 'created' | 'rotated' | 'revoked';
  keyId: string;
  kind: KeyKind;
  env: Env;
  at: number;
  newKeyId?: string;
  graceEndsAt?: number;
  /** The dashboard operator who made the change (absent for the CLI and the seed). */
  operator?: string;
}

export const keyActivityConverter = storedRecord<KeyActivity & { recordedAt: Timestamp }>();
