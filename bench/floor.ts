import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Firestore } from 'firebase-admin/firestore';

/** The floor: a bare Node HTTP server answering a fixed JSON body, measured in the same run. */
export async function startFloorServer(): Promise<{ server: Server; url: string }> {
  const body = JSON.stringify({ status: 'ok', service: 'floor', timestamp: 0, region: 'local' });
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { server, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` };
}

/**
 * The store floor of one events request, with no server: read two small documents (what the
 * request's key re-check and project read fetch), then commit one document of the size a
 * compressed 100-event batch takes. Driven like the events scenarios, it shows how much of their
 * latency the emulator itself accounts for.
 */
export function eventsStoreFloor(db: Firestore): () => Promise<boolean> {
  const root = `bench-store-floor/${randomUUID()}`;
  const payload = randomBytes(6 * 1024);
  let sequence = 0;
  return async () => {
    await db.getAll(db.doc(`${root}/reads/key`), db.doc(`${root}/reads/project`));
    sequence += 1;
    await db.doc(`${root}/writes/${sequence}`).set({ events: payload, receivedAt: Date.now() });
    return true;
  };
}

/**
 * The store floor of a read request, with no server: `rounds` sequential `getAll`s of that many
 * small existing documents each (an entitlements read by user id is [2, 1]: identity document
 * and key, then the projection; the server read is [3]: key, customer and projection).
 */
export async function readsStoreFloor(db: Firestore, rounds: number[]): Promise<() => Promise<boolean>> {
  const root = `bench-store-floor/${randomUUID()}`;
  const refs = rounds.map((size, round) => Array.from({ length: size }, (_, i) => db.doc(`${root}/round${round}/doc${i}`)));
  const batch = db.batch();
  for (const ref of refs.flat()) batch.set(ref, { status: 'active', entitlements: { pro: { active: true, expiresAt: Date.now() + 86_400_000 } } });
  await batch.commit();
  return async () => {
    for (const round of refs) {
      const snapshots = await db.getAll(...round);
      if (!snapshots.every((snapshot) => snapshot.exists)) return false;
    }
    return true;
  };
}
