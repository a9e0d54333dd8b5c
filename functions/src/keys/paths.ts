import type { DocumentReference, Firestore } from 'firebase-admin/firestore';
import { appRef } from '../projects/paths';
import { sha256Hex, type ParsedKey } from './format';
import { keyActivityConverter, keyRecordConverter, type KeyRecord } from './record';

/** The key index lives outside any project: a key is looked up before its project is known. */
export const PUBLISHABLE_KEYS = 'publishableKeys';
export const SECRET_KEYS = 'secretKeys';

export function keyIndexRef(db: Firestore, key: ParsedKey): DocumentReference<KeyRecord> {
  return key.kind === 'publishable'
    ? keyIndex(db, 'publishable').doc(key.value)
    : keyIndex(db, 'secret').doc(sha256Hex(key.value));
}

/** One of the two key indexes, typed. */
export function keyIndex(db: Firestore, kind: ParsedKey['kind']) {
  return db.collection(kind === 'publishable' ? PUBLISHABLE_KEYS : SECRET_KEYS).withConverter(keyRecordConverter);
}

export const keyActivityCollection = (db: Firestore, appId: string) => appRef(db, appId).collection('keyActivity').withConverter(keyActivityConverter);
