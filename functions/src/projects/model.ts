import type { Platform } from '../wire/vocabulary';
import type { Env } from '../store/env';
import { storedRecord } from '../store/converters';

export interface ProjectRecord {
  projectId: string;
  name: string;
  archived: boolean;
  createdAt: number;
  /** Days telemetry events are kept (TTL); absent means the deployment default (events/retention.ts). */
  telemetryRetentionDays?: number;
}

/** Which key of each kind is current for an environment (a rotated-out key is not). */
export interface CurrentKeys {
  publishable: string | null;
  secret: string | null;
}

export interface AppRecord {
  appId: string;
  projectId: string;
  name: string;
  platform: Platform;
  allowedOrigins: string[];
  bundleId: string | null;
  packageName: string | null;
  archived: boolean;
  createdAt: number;
  currentKeys: Record<Env, CurrentKeys>;
}

export const projectConverter = storedRecord<ProjectRecord>();
export const appConverter = storedRecord<AppRecord>();
