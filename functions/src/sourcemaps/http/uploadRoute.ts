import { route } from '../../http/route';
import { sourcemapBatchResponseSchema, uploadBodySchema, type SourcemapBatchResponse, type UploadBody } from '../../wire/sourcemaps';
import { MAX_UPLOAD_BODY_BYTES } from '../limits';
import { sourcemapLogs } from '../logs';
import { requireKeyEnvironment } from './uploadRequest';
import { uploadSourceMapBatch } from '../uploadService';

/** `POST /v1/releases/sourcemaps`: secret key only; storage now, resolution at read time. */
export const uploadSourcemapsRoute = route<UploadBody, Record<string, string>, Record<string, string>, SourcemapBatchResponse>({
  method: 'POST',
  path: '/v1/releases/sourcemaps',
  key: 'secret',
  body: uploadBodySchema,
  response: sourcemapBatchResponseSchema,
  maxBodyBytes: MAX_UPLOAD_BODY_BYTES,
  cacheControl: 'no-store',
  handler: async (ctx) => {
    requireKeyEnvironment(ctx.body, ctx.auth);
    const { release, environment, files } = ctx.body;
    const outcome = await uploadSourceMapBatch(ctx.scope, release, files, { now: ctx.deps.clock.now(), keyId: ctx.auth.keyId });
    sourcemapLogs.batchStored(ctx.requestId, ctx.auth.projectId, ctx.auth.env, release, {
      uploaded: outcome.uploaded,
      skipped: outcome.skipped,
      errors: outcome.errors.length,
    });
    const body: SourcemapBatchResponse = { object: 'sourcemap_batch', release, environment, ...outcome };
    return { body };
  },
});
