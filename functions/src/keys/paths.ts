import type { DocumentReference, Firestore } from 'firebase-admin/firestore';
import { sha256Hex, type ParsedKey } from './format';

/** The key index lives outside any project: a key is looked up before its project is known. */
export const PUBLISHABLE_KEYS = 'publishableKeys';
export const SECRET_KEYS = 'secretKeys';

export function keyIndexRef(db: Firestore, key: ParsedKey): DocumentReference {
  return key.kind === 'publishable'
    ? db.collection(PUBLISHABLE_KEYS).doc(key.value)
    : db.collection(SECRET_KEYS).doc(sha256Hex(key.value));
}

export const projectRef = (db: Firestore, projectId: string): DocumentReference => db.collection('projects').doc(projectId);

/** Apps are addressed by id alone (operators pass `--app ID`), so they live at the top level. */
export const appRef = (db: Firestore, appId: string): DocumentReference => db.collection('apps').doc(appId);

export const keyActivityCollection = (db: Firestore, appId: string) => appRef(db, appId).collection('keyActivity');
