import type { DocumentReference, Firestore } from 'firebase-admin/firestore';
import { appRef } from '../projects/paths';
import { sha256Hex, type ParsedKey } from './format';

/** The key index lives outside any project: a key is looked up before its project is known. */
export const PUBLISHABLE_KEYS = 'publishableKeys';
export const SECRET_KEYS = 'secretKeys';

export function keyIndexRef(db: Firestore, key: ParsedKey): DocumentReference {
  return key.kind === 'publishable'
    ? db.collection(PUBLISHABLE_KEYS).doc(key.value)
    : db.collection(SECRET_KEYS).doc(sha256Hex(key.value));
}

export const keyActivityCollection = (db: Firestore, appId: string) => appRef(db, appId).collection('keyActivity');
