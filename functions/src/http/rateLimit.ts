import type { PipelineDeps } from './deps';
import { BUCKETS, type BucketName } from '../ratelimit/buckets';
import type { LimitDecision } from '../ratelimit/limiter';
import { rateLimited } from '../ratelimit/refusal';
import type { AuthContext } from './route';

/** Charges `cost` tokens of a bucket for the key's project and environment; all or nothing. */
export async function enforceRateLimit(deps: PipelineDeps, auth: AuthContext, bucket: BucketName, cost = 1): Promise<LimitDecision> {
  const decision = await deps.limiter.take({ projectId: auth.projectId, env: auth.env, bucket }, BUCKETS[bucket], cost);
  if (decision.granted < cost) throw rateLimited(decision, bucket);
  return decision;
}
