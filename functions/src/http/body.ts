import type { Request } from 'express';
import { ApiError } from './errors';

/**
 * Reads the body as bytes, with a limit. Cloud Functions has already buffered it into
 * `req.rawBody`; the local server has not, so the stream is read here.
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
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      throw tooLarge(limit);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function tooLarge(limit: number): ApiError {
  return new ApiError('invalid_param_value', `Request body exceeds the limit of ${limit} bytes.`);
}

/** JSON bodies only; a wrong content type or malformed JSON is a 400, never a 500. */
export function parseJsonBody(raw: Buffer, contentType: string | undefined): unknown {
  if (raw.length === 0) return {};
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json' && !type.endsWith('+json')) {
    throw new ApiError('invalid_param_value', `Content-Type must be application/json (got ${type || 'none'}).`);
  }
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new ApiError('invalid_param_value', 'The request body is not valid JSON.');
  }
}
