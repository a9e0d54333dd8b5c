import { parentPort, workerData } from 'node:worker_threads';
import { drivePacedInThread, type PacedLoad } from './paced';
import type { BenchRequest } from './scenario';

/** Runs a paced HTTP load on its own thread (see drivePaced) and posts the result back. */
const { baseUrl, request, load } = workerData as { baseUrl: string; request: BenchRequest; load: PacedLoad };
drivePacedInThread(baseUrl, request, load).then(
  (result) => parentPort?.postMessage({ result }),
  (err: unknown) => parentPort?.postMessage({ error: err instanceof Error ? err.message : String(err) }),
);
