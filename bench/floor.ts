import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { DocumentReference, Firestore } from 'firebase-admin/firestore';

/**
 * The floors, in the server's process so that their CPU is measured as the server's is: a bare
 * Node HTTP server answering a fixed JSON body, and (under `/store/…`) the same bare server doing
 * a route's store work and nothing else — `GET /store/reads/3` one `getAll` of 3 documents (the
 * server read), `GET /store/reads/2-1` a `getAll` of 2 then of 1 (the entitlements read by user
 * id), `POST /store/events` the body read, a `getAll` of 2 and a commit of the body (an events
 * batch). The difference to a route's CPU per request is what Express, the pipeline and the
 * service cost on top of the store work they cannot avoid.
 */
export async function startFloorServer(db: Firestore): Promise<{ server: Server; url: string }> {
  const body = JSON.stringify({ status: 'ok', service: 'floor', timestamp: 0, region: 'local' });
  const reply = (res: ServerResponse, status: number, text: string) => {
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const storeWork = storeWorkFloors(db);
  const server = createServer((req, res) => {
    const work = req.url?.startsWith('/store/') ? storeWork[`${req.method} ${req.url}`] : undefined;
    if (!work) return reply(res, 200, body);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      work(Buffer.concat(chunks)).then(
        (answer) => reply(res, 200, JSON.stringify(answer)),
        (err: unknown) => reply(res, 500, JSON.stringify({ error: String(err) })),
      );
    });
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
  const refs = await seedReadDocuments(db, `bench-store-floor/${randomUUID()}`, rounds);
  return async () => {
    for (const round of refs) {
      const snapshots = await db.getAll(...round);
      if (!snapshots.every((snapshot) => snapshot.exists)) return false;
    }
    return true;
  };
}

/** `rounds` groups of small existing documents (a projection's size), in collections `{root}/{name}{round}`, for the read floors. */
async function seedReadDocuments(db: Firestore, root: string, rounds: number[], name = 'round'): Promise<DocumentReference[][]> {
  const refs = rounds.map((size, round) => Array.from({ length: size }, (_, i) => db.doc(`${root}/${name}${round}/doc${i}`)));
  const batch = db.batch();
  for (const ref of refs.flat()) batch.set(ref, { status: 'active', entitlements: { pro: { active: true, expiresAt: Date.now() + 86_400_000 } } });
  await batch.commit();
  return refs;
}

/** The store work of each `/store/…` floor route, on documents seeded at first use. */
function storeWorkFloors(db: Firestore): Record<string, (body: Buffer) => Promise<unknown>> {
  const root = `bench-store-floor/${randomUUID()}`;
  const seeded = new Map<string, Promise<DocumentReference[][]>>();
  const docs = (name: string, rounds: number[]) => {
    let ready = seeded.get(name);
    if (!ready) {
      ready = seedReadDocuments(db, root, rounds, name);
      seeded.set(name, ready);
    }
    return ready;
  };
  const reads = (name: string, rounds: number[]) => async () => {
    const data: unknown[] = [];
    for (const round of await docs(name, rounds)) data.push(...(await db.getAll(...round)).map((snapshot) => snapshot.data()));
    return { object: 'list', data };
  };
  let sequence = 0;
  return {
    'GET /store/reads/3': reads('server', [3]),
    'GET /store/reads/2-1': reads('byUserId', [2, 1]),
    'POST /store/events': async (received: Buffer) => {
      const [refs] = await docs('events', [2]);
      await db.getAll(...refs);
      sequence += 1;
      await db.doc(`${root}/eventWrites/${sequence}`).set({ events: received, receivedAt: Date.now() });
      return { object: 'list', received: received.length };
    },
  };
}
