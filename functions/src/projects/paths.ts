import type { DocumentReference, Firestore } from 'firebase-admin/firestore';

export const projectRef = (db: Firestore, projectId: string): DocumentReference => db.collection('projects').doc(projectId);
/** Apps are addressed by id alone (operators pass `--app ID`), so they live at the top level. */
export const appRef = (db: Firestore, appId: string): DocumentReference => db.collection('apps').doc(appId);
