import { getApps, initializeApp } from 'firebase-admin/app';
import { Firestore, getFirestore } from 'firebase-admin/firestore';

/**
 * The one Firestore handle of this process. Locally and in tests `FIRESTORE_EMULATOR_HOST`
 * points the Admin SDK at the emulator; deployed, the function's service account is used.
 */
let firestore: Firestore | undefined;

export function db(): Firestore {
  if (!firestore) {
    const app =
      getApps()[0] ?? initializeApp(process.env.GCLOUD_PROJECT ? { projectId: process.env.GCLOUD_PROJECT } : undefined);
    firestore = getFirestore(app);
    try {
      firestore.settings({ ignoreUndefinedProperties: true });
    } catch {
      // Another copy of this module (a test loading the compiled entry point beside the
      // sources) already configured this app's Firestore, with the same settings.
    }
  }
  return firestore;
}
