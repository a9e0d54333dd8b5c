import type { EnvScope } from '../store/scope';
import type { Surface } from './surfaces';

export interface LivenessEntry {
  appId: string;
  platform: string;
  surface: Surface | null;
  sdk: string | null;
  at: number;
}

/** Where heartbeats land. Swappable so a test can prove a storage failure still answers `ok`. */
export interface LivenessRecorder {
  record(scope: EnvScope, entry: LivenessEntry): Promise<void>;
}

/**
 * One document per app and one per SDK surface, under the key's partition. Heartbeats are
 * rate-limited (1/s per project and environment), so neither document gets hot.
 */
export const firestoreLiveness: LivenessRecorder = {
  async record(scope, entry) {
    const batch = scope.batch();
    batch.set(scope.doc('liveness', `app_${entry.appId}`), { appId: entry.appId, platform: entry.platform, lastSeenAt: entry.at, lastSdk: entry.sdk }, { merge: true });
    if (entry.surface) {
      batch.set(scope.doc('liveness', `surface_${entry.surface}`), { surface: entry.surface, lastSeenAt: entry.at, lastSdk: entry.sdk }, { merge: true });
    }
    await scope.commit(batch);
  },
};
