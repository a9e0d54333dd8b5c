import { isUtf8 } from 'node:buffer';
import type { Request } from 'express';
import { ApiError } from './errors';
import { describeJsonProblem, findJsonProblem, formatJsonPath, type JsonProblem } from '../wire/jsonShape';

/**
 * Reads the body as bytes, with a limit. Cloud Functions has already buffered it into
 * `req.rawBody`; the local server (and the bench's) has not, so the stream is read here.
 */
export async function readRawBody(req: Request, limit: number): Promise<Buffer> {
  const buffered = (req as Request & { rawBody?: Buffer }).rawBody;
  if (Buffer.isBuffer(buffered)) {
    if (buffered.length > limit) throw tooLarge(limit);
    return buffered;
  }
  const declared = Number(req.get('content-length') ?? 0);
  if (declared > limit) {
    req.resume();
    throw tooLarge(limit);
  }
  return readStream(req, limit);
}

/**
 * The stream's bytes through its events rather than an async iterator (whose promise per chunk
 * and iterator machinery cost more than the read itself for a body of a few KB).
 */
function readStream(req: Request, limit: number): Promise<Buffer> {
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        settle();
        req.resume(); // the rest is discarded as it arrives
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      settle();
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    };
    const onError = (err: Error): void => {
      settle();
      reject(err);
    };
    // Closed before its end (the client went away): the body is incomplete.
    const onClose = (): void => {
      settle();
      reject(new Error('request closed before its body ended'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

function tooLarge(limit: number): ApiError {
  return new ApiError('invalid_param_value', `Request body exceeds the limit of ${limit} bytes.`);
}

/**
 * JSON bodies only; a wrong content type, bytes that are not UTF-8, malformed JSON, nesting
 * beyond the limit or a string that is not well-formed Unicode is a 400, never a 500.
 */
export function parseJsonBody(raw: Buffer, contentType: string | undefined): unknown {
  if (raw.length === 0) return {};
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json' && !type.endsWith('+json')) {
    throw new ApiError('invalid_param_value', `Content-Type must be application/json (got ${type || 'none'}).`);
  }
  // Decoding would silently turn invalid bytes into U+FFFD; refuse them instead (JSON is UTF-8).
  if (!isUtf8(raw)) throw new ApiError('invalid_param_value', 'The request body is not valid UTF-8.', { internal: 'body: invalid UTF-8' });
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new ApiError('invalid_param_value', 'The request body is not valid JSON.');
  }
  const problem = findJsonProblem(body);
  if (problem) throw jsonProblemError(problem);
  return body;
}

/** `400 invalid_param_value` naming the field; the internal detail makes the log line searchable. */
export function jsonProblemError(problem: JsonProblem): ApiError {
  const field = formatJsonPath(problem.path) || 'body';
  switch (problem.kind) {
    case 'ill_formed_string':
      return new ApiError('invalid_param_value', `Invalid value for \`${field}\`: not well-formed Unicode (it contains a lone UTF-16 surrogate).`, {
        internal: describeJsonProblem(problem),
      });
    case 'ill_formed_key':
      return new ApiError('invalid_param_value', `Invalid field name \`${field}\`: not well-formed Unicode (it contains a lone UTF-16 surrogate).`, {
        internal: describeJsonProblem(problem),
      });
    case 'too_deep':
      return new ApiError('invalid_param_value', `Invalid value for \`${field}\`: JSON may nest at most ${problem.maxDepth} levels deep.`, {
        internal: describeJsonProblem(problem),
      });
  }
}
