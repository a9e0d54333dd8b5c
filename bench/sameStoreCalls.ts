import type { Firestore } from 'firebase-admin/firestore';
import { parseKey } from '#functions/keys/format';
import { keyIndexRef } from '#functions/keys/paths';
import { EnvScope } from '#functions/store/scope';
import { recordingMaskedReads } from '../fixtures/rollupSeeding';
import type { PacedOperation } from './paced';

/**
 * The store floor of one warm request that reads through `EnvScope.getAllMasked` (the series
 * reports): the very store calls it issues, recorded by running its service once, then replayed
 * from the bench's process: the same document paths, the same masks, the same `getAll`s, all in
 * parallel beside the key document's read (the key gate's `get`), each snapshot decoded. What a
 * report costs over this is its own work: the pipeline, the series, the JSON.
 */
export interface StoreCallsFloor {
  operation: PacedOperation;
  /** What the server's probe must report for the floor to be the same work (checked by run.ts). */
  roundTrips: number;
  documentsRead: number;
  /** The row's name (default: the reports' wording). */
  label?: string;
  /** The calls, one line each, printed under the table (bench/railFloor.ts). */
  calls?: string[];
  /** Transaction attempts the floor retried so far (aborted by contention), when it runs transactions. */
  retries?: () => number;
  /** Also a row of the same calls from one client alone: the bench process's CPU per operation without contention. */
  cpuOnly?: boolean;
  /** Seconds of the closed loop driven unmeasured first (the bench process's own client code is cold until then). */
  warmSeconds?: number;
}

/** Runs the service as served, recording each masked read (the reads still happen). */
const RecordingScope = recordingMaskedReads(EnvScope);

export async function storeCallsFloor(db: Firestore, projectId: string, secretKey: string, service: (scope: EnvScope) => Promise<unknown>): Promise<StoreCallsFloor> {
  const key = parseKey(secretKey);
  if (!key) throw new Error('storeCallsFloor: not an API key');
  const keyRef = keyIndexRef(db, key);
  const recorder = new RecordingScope(db, projectId, key.env);
  await service(recorder);
  const { reads } = recorder;
  const operation: PacedOperation = async () => {
    const [keySnapshot, ...results] = await Promise.all([keyRef.get(), ...reads.map((read) => (read.mask.length > 0 ? db.getAll(...read.refs, { fieldMask: read.mask }) : db.getAll(...read.refs)))]);
    for (const snapshots of results) for (const snapshot of snapshots) snapshot.data();
    return keySnapshot.data() !== undefined;
  };
  return { operation, roundTrips: reads.length + 1, documentsRead: reads.reduce((sum, read) => sum + read.refs.length, 0) };
}
