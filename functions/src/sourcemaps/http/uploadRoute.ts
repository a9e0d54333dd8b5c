import { route } from '../../http/route';
import { MAX_UPLOAD_BODY_BYTES } from '../limits';
import { sourcemapLogs } from '../logs';
import { requireKeyEnvironment, uploadBodySchema, type UploadRequest } from './uploadRequest';
import { uploadSourceMapBatch, type FileErrorRow, type FileResultRow } from '../uploadService';

/** `POST /v1/releases/sourcemaps`: secret key only; storage now, resolution at read time. */
export interface SourcemapBatchResponse {
  object: 'sourcemap_batch';
  release: string;
  environment: 'production' | 'sandbox';
  uploaded: number;
  skipped: number;
  errors: FileErrorRow[];
  results: FileResultRow[];
}

export const uploadSourcemapsRoute = route<UploadRequest>({
  method: 'POST',
  path: '/v1/releases/sourcemaps',
  key: 'secret',
  body: uploadBodySchema,
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
