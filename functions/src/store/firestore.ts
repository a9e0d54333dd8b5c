import { getApps, initializeApp } from 'firebase-admin/app';
import { Firestore, getFirestore, initializeFirestore } from 'firebase-admin/firestore';

/**
 * The one Firestore handle of this process. Locally and in tests `FIRESTORE_EMULATOR_HOST`
 * points the Admin SDK at the emulator; deployed, the function's service account is used.
 */
let firestore: Firestore | undefined;

export function db(): Firestore {
  if (!firestore) {
    const app =
      getApps()[0] ?? initializeApp(process.env.GCLOUD_PROJECT ? { projectId: process.env.GCLOUD_PROJECT } : undefined);
    try {
      firestore = initializeFirestore(app, { ignoreUndefinedProperties: true });
    } catch {
      // Another copy of this module (a test loading the compiled entry point beside the
      // sources) already configured the app's Firestore with the same settings.
      firestore = getFirestore(app);
    }
  }
  return firestore;
}
