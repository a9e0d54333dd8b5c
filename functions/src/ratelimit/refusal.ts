import { DomainError, type RetryHint } from '../errors/domain';

/**
 * The `rate_limited` refusal of a throttled caller: the pipeline's buckets (http/rateLimit.ts),
 * the events endpoint's per-event charge and identify's per-user velocity cap raise the same one.
 */
export function rateLimited(hint: RetryHint, what = 'this endpoint'): DomainError<'rate_limited'> {
  return new DomainError('rate_limited', `Rate limit exceeded for ${what}; retry after the Retry-After interval.`, {
    retry: { retryAfterMs: hint.retryAfterMs, sampleRate: hint.sampleRate },
  });
}
