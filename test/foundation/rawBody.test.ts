/**
 * The pipeline's body read (http/body.ts) where the body is not buffered for it (the local server,
 * the bench): exact bytes over several chunks, the limit enforced as the bytes arrive (no
 * Content-Length), a body closed before its end refused rather than waited for, and a body
 * Cloud Functions already buffered taken as it is.
 */
import { PassThrough } from 'node:stream';
import type { Request } from 'express';
import { readRawBody } from '../../functions/src/http/body';
import { ApiError } from '../../functions/src/http/errors';

/** A request stream with the one Express helper the body read uses. */
function streamedRequest(headers: Record<string, string> = {}): PassThrough & Request {
  const stream = new PassThrough() as PassThrough & Request;
  stream.get = ((name: string) => headers[name.toLowerCase()]) as Request['get'];
  return stream;
}

it('returns the exact bytes sent over several chunks', async () => {
  const req = streamedRequest();
  const read = readRawBody(req, 1024);
  req.write(Buffer.from('{"a":'));
  req.write(Buffer.from('"é"'));
  req.end(Buffer.from('}'));
  expect((await read).toString('utf8')).toBe('{"a":"é"}');
});

it('refuses a body without Content-Length once its bytes pass the limit, and discards the rest', async () => {
  const req = streamedRequest();
  const read = readRawBody(req, 8);
  req.write(Buffer.from('12345'));
  req.write(Buffer.from('67890'));
  await expect(read).rejects.toMatchObject({ code: 'invalid_param_value', message: 'Request body exceeds the limit of 8 bytes.' });
  await expect(read).rejects.toBeInstanceOf(ApiError);
  req.end(Buffer.alloc(4096));
  await new Promise((resolve) => req.once('end', resolve)); // still flowing: the rest is read and dropped
});

it('refuses a declared length over the limit before reading anything', async () => {
  const req = streamedRequest({ 'content-length': '9' });
  await expect(readRawBody(req, 8)).rejects.toMatchObject({ code: 'invalid_param_value' });
});

it('rejects a body whose stream closes before its end instead of waiting for ever', async () => {
  const req = streamedRequest();
  const read = readRawBody(req, 1024);
  req.write(Buffer.from('{"partial":'));
  req.destroy();
  await expect(read).rejects.toThrow();
});

it('takes a body Cloud Functions buffered as it is, within the limit', async () => {
  const buffered = Object.assign(streamedRequest(), { rawBody: Buffer.from('{}') });
  expect((await readRawBody(buffered, 8)).toString()).toBe('{}');
  await expect(readRawBody(Object.assign(streamedRequest(), { rawBody: Buffer.alloc(9) }), 8)).rejects.toMatchObject({ code: 'invalid_param_value' });
});
