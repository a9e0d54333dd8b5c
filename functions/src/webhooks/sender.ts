import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { AttemptErrorKind } from './deliveryModel';
import { RESPONSE_BODY_BYTES } from './deliveryModel';

/**
 * One POST to a checked destination. The connection goes to `address` (an address
 * `checkDestination` approved), never to a fresh resolution of the host: the request's own DNS
 * lookup is replaced by one that answers `address`, so a resolver that answers differently the
 * second time (DNS rebinding) changes nothing, while the Host header, TLS SNI and certificate
 * check keep using the URL's host name. Redirects are never followed (a 3xx is an answer like
 * any other), and the whole exchange is bounded by `deadline`.
 */
export interface SendRequest {
  url: URL;
  address: string;
  body: Buffer;
  headers: Record<string, string>;
  /** `performance.now()` by which the exchange must be complete. */
  deadline: number;
}

export interface SendResult {
  statusCode: number | null;
  /** First bytes of the answer's body (at most RESPONSE_BODY_BYTES), null when none came. */
  responseBody: string | null;
  error: { kind: Exclude<AttemptErrorKind, 'http_status' | 'gone' | 'destination_refused'>; detail: string } | null;
}

const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|ERR_CERT)/;

function pinnedLookup(address: string): LookupFunction {
  const family = isIP(address);
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
}

export function sendSigned(request: SendRequest): Promise<SendResult> {
  const { url } = request;
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<SendResult>((resolve) => {
    let statusCode: number | null = null;
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const finish = (result: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
      req.destroy();
    };
    const bodyText = () => (received > 0 ? Buffer.concat(chunks).subarray(0, RESPONSE_BODY_BYTES).toString('utf8') : null);
    const req = client.request(
      {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || (url.protocol === 'https:' ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: { ...request.headers, Host: url.host, 'Content-Length': String(request.body.length) },
        lookup: pinnedLookup(request.address),
        agent: false, // a connection per attempt: never one pooled for another (pinned) address
      },
      (res) => {
        statusCode = res.statusCode ?? null;
        res.on('data', (chunk: Buffer) => {
          if (received < RESPONSE_BODY_BYTES) chunks.push(chunk);
          received += chunk.length;
          // The rest of a long answer is not read: the status and its first 1 KB are all that is kept.
          if (received >= RESPONSE_BODY_BYTES) finish({ statusCode, responseBody: bodyText(), error: null });
        });
        res.on('end', () => finish({ statusCode, responseBody: bodyText(), error: null }));
        res.on('error', () => finish({ statusCode, responseBody: bodyText(), error: null }));
      },
    );
    const timer = setTimeout(() => {
      // An answer whose status arrived counts as that answer, even if its body was cut short.
      if (statusCode !== null) finish({ statusCode, responseBody: bodyText(), error: null });
      else finish({ statusCode: null, responseBody: null, error: { kind: 'timeout', detail: 'no answer within the timeout' } });
    }, Math.max(0, request.deadline - performance.now()));
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (statusCode !== null) return finish({ statusCode, responseBody: bodyText(), error: null });
      const code = err.code ?? err.name;
      finish({ statusCode: null, responseBody: null, error: { kind: TLS_CODES.test(code) ? 'tls' : 'connection', detail: code.slice(0, 80) } });
    });
    req.end(request.body);
  });
}
