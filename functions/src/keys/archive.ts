import type { Firestore } from 'firebase-admin/firestore';
import { DomainError } from '../errors/domain';
import { appRef, projectRef } from '../projects/paths';
import { getApp } from '../projects/repository';
import type { AppRecord, ProjectRecord } from '../projects/model';
import { keyIndex } from './paths';

// Archiving a project or an app lives with the keys: its effect is that every key under it fails
// closed from the next request on (key lookup reads the flag copied onto each key document).

/** Archiving makes every key of the app fail closed; the flag is copied onto each key document. */
export async function archiveApp(db: Firestore, appId: string): Promise<AppRecord> {
  return db.runTransaction(async (tx) => {
    const app = await getApp(db, appId, tx);
    const keys = await Promise.all([
      tx.get(keyIndex(db, 'publishable').where('appId', '==', appId)),
      tx.get(keyIndex(db, 'secret').where('appId', '==', appId)),
    ]);
    tx.update(appRef(db, appId), { archived: true });
    for (const snapshot of keys) for (const doc of snapshot.docs) tx.update(doc.ref, { appArchived: true });
    return { ...app, archived: true };
  });
}

export async function archiveProject(db: Firestore, projectId: string): Promise<ProjectRecord> {
  return db.runTransaction(async (tx) => {
    const ref = projectRef(db, projectId);
    const project = (await tx.get(ref)).data();
    if (!project) throw new DomainError('not_found', `No project ${projectId}.`);
    const keys = await Promise.all([
      tx.get(keyIndex(db, 'publishable').where('projectId', '==', projectId)),
      tx.get(keyIndex(db, 'secret').where('projectId', '==', projectId)),
    ]);
    tx.update(ref, { archived: true });
    for (const result of keys) for (const doc of result.docs) tx.update(doc.ref, { projectArchived: true });
    return { ...project, archived: true };
  });
}
