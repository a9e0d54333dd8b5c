import { createServer } from 'node:http';
import type { RootDeps } from '#functions/app/deps';
import { recordStoreCalls, shapeOf, type RecordedCall } from '../fixtures/storeCallRecorder';
import { replay, replayPlan, type ReplayPlan } from '../fixtures/storeCallReplay';
import { roundTripsOf } from './load';
import { wireRails } from './railWiring';
import type { StoreCallsFloor } from './sameStoreCalls';
import type { BenchRequest } from './scenario';
import type { RailWiring } from './serverProtocol';

/**
 * A rail notification's own store floor: the very store calls one notification makes,
 * replayed from the bench's process (bench/run.ts drives them like the route). The service
 * runs here, in the bench's process, as the server runs it (every route, the rails pointed at
 * the same local fakes), and two of its notifications — new subscribers, the scenario's own
 * request — are recorded at the Firestore client's RPC edge (fixtures/storeCallRecorder.ts):
 * each call's kind, documents and encoded writes. Replays send the same requests through the
 * same client funnels with fresh ids for what the notification created (the ids the two
 * recordings do not share), a random shard per replay for the sharded rollups (as a new
 * customer's key would pick), transactions as transactions (fixtures/storeCallReplay.ts).
 * Nothing of the service is hooked; what the client does above its RPC edge (building write
 * messages from objects, snapshots from responses) is not in the floor, which is therefore a
 * lower bound of any server's store work on this client.
 */

interface InProcessService {
  deps: RootDeps;
  url: string;
}

let service: Promise<InProcessService> | null = null;

/** The service as bench/server.ts serves it, listening on loopback in this process (built once). */
async function inProcessService(): Promise<InProcessService> {
  service ??= (async () => {
    const { createDeps } = await import('#functions/app/deps');
    const { ALL_ROUTES } = await import('#functions/app/groups');
    const { createServiceApp } = await import('#functions/app/serviceApp');
    // Tasks accepted and not run, as the server hands them to the task worker: their store calls are not the notification's.
    const deps = createDeps({ tasks: { enqueue: async () => 'enqueued' } });
    const server = createServer(createServiceApp(ALL_ROUTES, deps));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    server.unref();
    const address = server.address();
    return { deps, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` };
  })();
  return service;
}

/** One recorded notification: its calls and the counts the service itself reported for it. */
interface Recording {
  calls: RecordedCall[];
  roundTrips: number;
  documentsRead: number;
}

async function recordOne(deps: RootDeps, url: string, request: BenchRequest, path: string): Promise<Recording> {
  // The process's one Firestore client, idle but for this request here: any other RPC would be recorded too (and refused below).
  const { value, calls } = await recordStoreCalls(deps.db, () => roundTripsOf(url, request));
  if (value.status < 200 || value.status >= 300) throw new Error(`${path}: the recorded notification answered ${value.status}`);
  if (value.roundTrips === null || value.documentsRead === null) throw new Error(`${path}: the service reported no round trips (TESSERA_EXPOSE_ROUND_TRIPS)`);
  // The count at the store edge and the client's own RPCs must agree, or the recording missed (or added) something.
  if (calls.length !== value.roundTrips) throw new Error(`${path}: ${calls.length} store calls recorded, the service counted ${value.roundTrips}`);
  return { calls, roundTrips: value.roundTrips, documentsRead: value.documentsRead };
}

/** The recorded calls as the report prints them: kind, documents (ids made up per notification as `{new}`), writes and their bytes. */
function describeCalls(calls: readonly RecordedCall[], plan: ReplayPlan): string[] {
  const variable = new Set(plan.variable);
  const shortName = (name: string) => {
    const relative = name.replace(/^projects\/[^/]+\/databases\/[^/]+\/documents\//, '');
    return relative
      .split('/')
      .map((segment, i, all) => {
        const shard = plan.shards.get(segment);
        if (shard) return `${shard.period}_{shard}`;
        return variable.has(segment) ? '{new}' : i === 1 && all[0] === 'projects' ? '{project}' : segment;
      })
      .join('/');
  };
  return calls.map((call, index) => {
    const shape = shapeOf(call);
    const names = shape.documents.map(shortName);
    const what = shape.kind.endsWith('commit') ? `${names.length} writes, ${shape.writeBytes} bytes encoded` : `${names.length} documents`;
    return `${index + 1}. ${shape.kind}: ${what} (${names.join(', ')})`;
  });
}

/**
 * Records the scenario's notification (warm instance: one unrecorded first) twice and returns
 * the floor replaying it, with the counts the service reported for the recorded request: a
 * floor whose request counted otherwise than the server's probe is refused by bench/run.ts.
 */
export async function railNotificationFloor(request: BenchRequest, wiring: RailWiring, path: string): Promise<StoreCallsFloor> {
  const { deps, url } = await inProcessService();
  wireRails(deps, wiring);
  const warm = await roundTripsOf(url, request);
  if (warm.status < 200 || warm.status >= 300) throw new Error(`${path}: the in-process notification answered ${warm.status}`);
  const first = await recordOne(deps, url, request, path);
  const second = await recordOne(deps, url, request, path);
  if (first.roundTrips !== second.roundTrips || first.documentsRead !== second.documentsRead) throw new Error(`${path}: two notifications counted differently (${first.roundTrips}/${first.documentsRead} and ${second.roundTrips}/${second.documentsRead})`);
  const { REVENUE_ROLLUPS, REVENUE_SHARDS, SUBSCRIBER_ROLLUPS, SUBSCRIBER_SHARDS } = await import('#functions/store/rollups/model');
  const sharded = new Map([
    [SUBSCRIBER_ROLLUPS, SUBSCRIBER_SHARDS],
    [REVENUE_ROLLUPS, REVENUE_SHARDS],
  ]);
  const plan = replayPlan(first.calls, second.calls, sharded);
  let serial = 0;
  let retries = 0;
  return {
    operation: async () => {
      serial += 1;
      retries += (await replay(deps.db, plan, serial)).retries;
      return true;
    },
    roundTrips: first.roundTrips,
    documentsRead: first.documentsRead,
    label: `its store floor: the same ${plan.calls} store calls (recorded at the Firestore client, fresh ids for what it creates, transactions as transactions), from the bench's process, same closed loop`,
    calls: describeCalls(first.calls, plan),
    retries: () => retries,
    cpuOnly: true,
    // The first floor of a run measured the bench process's JIT: 12.3–13.0 ms per replay against 8.3–8.4 for the next two rails' alone.
    warmSeconds: 3,
  };
}
