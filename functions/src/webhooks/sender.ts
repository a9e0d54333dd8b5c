import http from 'node:http';
import https from 'node:https';
import type { AttemptErrorKind } from './deliveryModel';
import { RESPONSE_BODY_BYTES } from './deliveryModel';
import { pinnedLookup } from './connections';

/**
 * One POST to a checked destination, in two steps: `openRequest` takes a connection to `address`
 * (an address `checkDestination` approved: a kept one from the agent, or a new one), writing
 * nothing; `send` writes the signed request on it. The fan-out opens while its claim commits
 * and sends once it is committed; an attempt that is not claimed is `abandon`ed unsent.
 *
 * The connection goes to `address`, never to a fresh resolution of the host: the request's own
 * DNS lookup is replaced by one that answers `address` (and the agent's is pinned the same way,
 * connections.ts), so a resolver that answers differently the second time (DNS rebinding)
 * changes nothing, while the Host header, TLS SNI and certificate check keep using the URL's
 * host name. Redirects are never followed (a 3xx is an answer like any other), and the
 * exchange is bounded by `deadline`.
 */
export interface RequestTarget {
  url: URL;
  address: string;
  /** A kept-alive agent pinned to `address` (connections.ts), or false for a connection of this request only. */
  agent: http.Agent | false;
}

export interface SendResult {
  statusCode: number | null;
  /** First bytes of the answer's body (at most RESPONSE_BODY_BYTES), null when none came. */
  responseBody: string | null;
  error: { kind: Exclude<AttemptErrorKind, 'http_status' | 'gone' | 'destination_refused'>; detail: string } | null;
}

export interface PendingRequest {
  /** Writes the request and resolves to the answer by `deadline` (a `performance.now()` time). */
  send(headers: Record<string, string>, body: Buffer, deadline: number): Promise<SendResult>;
  /** Closes the connection without writing anything (the attempt was not claimed). */
  abandon(): void;
}

const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|ERR_CERT)/;
/** What a kept connection the receiver closed while we picked it fails with, before any answer. */
const STALE_CONNECTION_CODES = new Set(['ECONNRESET', 'EPIPE']);

export function openRequest(target: RequestTarget): PendingRequest {
  const { url } = target;
  const client = url.protocol === 'https:' ? https : http;
  const req = client.request({
    protocol: url.protocol,
    hostname: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port || (url.protocol === 'https:' ? 443 : 80),
    path: `${url.pathname}${url.search}`,
    method: 'POST',
    headers: { Host: url.host },
    lookup: pinnedLookup(target.address),
    agent: target.agent,
  });
  // Node writes nothing before `end`: until then the connection is only being opened (or taken from the agent).
  let earlyError: NodeJS.ErrnoException | null = null;
  let onError = (err: NodeJS.ErrnoException) => {
    earlyError ??= err;
  };
  req.on('error', (err: NodeJS.ErrnoException) => onError(err));

  return {
    abandon() {
      onError = () => undefined;
      req.destroy();
    },
    send(headers, body, deadline) {
      return new Promise<SendResult>((resolve) => {
        let statusCode: number | null = null;
        const chunks: Buffer[] = [];
        let received = 0;
        let settled = false;
        let timer: NodeJS.Timeout | undefined;
        /** `keepConnection`: the answer was read to its end, so the agent may hand the connection out again. */
        const finish = (result: SendResult, keepConnection = false) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve(result);
          if (!keepConnection) req.destroy();
        };
        const bodyText = () => (received > 0 ? Buffer.concat(chunks).subarray(0, RESPONSE_BODY_BYTES).toString('utf8') : null);
        req.on('response', (res) => {
          statusCode = res.statusCode ?? null;
          res.on('data', (chunk: Buffer) => {
            if (received < RESPONSE_BODY_BYTES) chunks.push(chunk);
            received += chunk.length;
            // The rest of a long answer is not read: the status and its first 1 KB are all that is kept.
            if (received >= RESPONSE_BODY_BYTES) finish({ statusCode, responseBody: bodyText(), error: null });
          });
          res.on('end', () => finish({ statusCode, responseBody: bodyText(), error: null }, true));
          res.on('error', () => finish({ statusCode, responseBody: bodyText(), error: null }));
        });
        onError = (err) => {
          if (statusCode !== null) return finish({ statusCode, responseBody: bodyText(), error: null });
          const code = err.code ?? err.name;
          if (!settled && req.reusedSocket && STALE_CONNECTION_CODES.has(code)) {
            // A kept connection the receiver closed as we took it (node's documented race): the
            // same attempt goes once more on a new connection to the same checked address.
            settled = true;
            clearTimeout(timer);
            req.destroy();
            resolve(openRequest({ ...target, agent: false }).send(headers, body, deadline));
            return;
          }
          finish({ statusCode: null, responseBody: null, error: { kind: TLS_CODES.test(code) ? 'tls' : 'connection', detail: code.slice(0, 80) } });
        };
        if (earlyError) return onError(earlyError);
        timer = setTimeout(() => {
          // An answer whose status arrived counts as that answer, even if its body was cut short.
          if (statusCode !== null) finish({ statusCode, responseBody: bodyText(), error: null });
          else finish({ statusCode: null, responseBody: null, error: { kind: 'timeout', detail: 'no answer within the timeout' } });
        }, Math.max(0, deadline - performance.now()));
        for (const [name, value] of Object.entries(headers)) req.setHeader(name, value);
        req.setHeader('Content-Length', String(body.length));
        req.end(body);
      });
    },
  };
}
