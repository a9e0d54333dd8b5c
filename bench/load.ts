import autocannon from 'autocannon';
import type { BenchRequest } from './scenario';

export interface LoadResult {
  requestsPerSec: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  total: number;
}

/** Drives one request shape with autocannon for a fixed duration. */
export async function drive(baseUrl: string, request: BenchRequest, connections: number, seconds: number): Promise<LoadResult> {
  const perRequest = request.nextBody !== undefined || request.nextRequest !== undefined;
  const result = await autocannon({
    url: `${baseUrl}${request.path}`,
    method: request.method,
    headers: { ...(hasBody(request) ? { 'content-type': 'application/json' } : {}), ...request.headers },
    body: request.body !== undefined && !perRequest ? JSON.stringify(request.body) : undefined,
    requests: perRequest
      ? [
          {
            setupRequest: (req) => {
              const next = nextOf(request);
              return { ...req, ...next, headers: { ...req.headers, ...request.headersFor?.(next.body) } };
            },
          },
        ]
      : undefined,
    connections,
    duration: seconds,
    // A 1,000-row migration takes seconds: never cut a request before Hosting's own 60 s limit would.
    timeout: 90,
    // The load runs on its own thread, so the client's work (building and parsing requests)
    // does not share the server's event loop. Per-request bodies need a function, which a
    // worker cannot receive: those scenarios drive from the main thread.
    workers: perRequest ? undefined : 1,
  });
  return {
    requestsPerSec: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    total: result.requests.total,
  };
}

/** Sends the request once and reads the store round trips the server reports for it. */
export async function roundTripsOf(baseUrl: string, request: BenchRequest): Promise<{ status: number; roundTrips: number | null; documentsRead: number | null }> {
  const { path, body } = request.nextBody || request.nextRequest ? nextOf(request) : { path: request.path, body: request.body !== undefined ? JSON.stringify(request.body) : undefined };
  const response = await fetch(`${baseUrl}${path}`, {
    method: request.method,
    headers: { ...(hasBody(request) ? { 'content-type': 'application/json' } : {}), ...request.headers, ...(body !== undefined ? request.headersFor?.(body) : {}) },
    body,
  });
  await response.arrayBuffer();
  const header = response.headers.get('x-tessera-round-trips');
  const documents = response.headers.get('x-tessera-documents-read');
  return { status: response.status, roundTrips: header === null ? null : Number(header), documentsRead: documents === null ? null : Number(documents) };
}

function hasBody(request: BenchRequest): boolean {
  return request.body !== undefined || request.nextBody !== undefined || request.nextRequest !== undefined;
}

/** The path and body of the next request of a load whose requests differ. */
function nextOf(request: BenchRequest): { path: string; body: string } {
  if (request.nextRequest) return request.nextRequest();
  return { path: request.path, body: request.nextBody!() };
}
