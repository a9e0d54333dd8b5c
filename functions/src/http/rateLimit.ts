import type { PipelineDeps } from './deps';
import { BUCKETS, type BucketName } from '../ratelimit/buckets';
import type { LimitDecision } from '../ratelimit/limiter';
import { ApiError } from './errors';
import type { AuthContext } from './route';

export function rateLimitedError(decision: LimitDecision, what = 'this endpoint'): ApiError {
  return new ApiError('rate_limited', `Rate limit exceeded for ${what}; retry after the Retry-After interval.`, {
    headers: {
      'Retry-After': String(Math.max(1, Math.ceil(decision.retryAfterMs / 1000))),
      'X-Service-Sample-Rate': String(decision.sampleRate),
    },
  });
}

/** Charges `cost` tokens of a bucket for the key's project and environment; all or nothing. */
export async function enforceRateLimit(deps: PipelineDeps, auth: AuthContext, bucket: BucketName, cost = 1): Promise<LimitDecision> {
  const decision = await deps.limiter.take({ projectId: auth.projectId, env: auth.env, bucket }, BUCKETS[bucket], cost);
  if (decision.granted < cost) throw rateLimitedError(decision, bucket);
  return decision;
}
