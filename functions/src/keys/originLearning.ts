import type { Firestore } from 'firebase-admin/firestore';
import { propagateAllowedOrigins } from './lifecycle';
import { getApp } from '../projects/repository';
import { originsToLearn } from './origins';

/**
 * Onboarding: a new web app with an empty allowlist learns the first observed origin plus its
 * registrable apex. Transactional, so two first heartbeats cannot both learn.
 * Returns the origins learned, or null when the allowlist was no longer empty.
 */
export async function learnFirstOrigin(db: Firestore, appId: string, origin: string): Promise<string[] | null> {
  return db.runTransaction(async (tx) => {
    const app = await getApp(db, appId, tx);
    if (app.platform !== 'web' || app.allowedOrigins.length > 0) return null;
    const learned = originsToLearn(origin);
    await propagateAllowedOrigins(db, tx, appId, learned);
    return learned;
  });
}
