import type { Firestore } from 'firebase-admin/firestore';
import { appConverter, projectConverter } from './model';

export const projectRef = (db: Firestore, projectId: string) => db.collection('projects').doc(projectId).withConverter(projectConverter);
/** Apps are addressed by id alone (operators pass `--app ID`), so they live at the top level. */
export const appsCollection = (db: Firestore) => db.collection('apps').withConverter(appConverter);
export const appRef = (db: Firestore, appId: string) => appsCollection(db).doc(appId);
