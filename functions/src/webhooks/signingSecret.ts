import { randomBytes } from 'node:crypto';
import { SecretUnavailableError } from '../secrets/store';
import type { DeliveryTarget } from './model';

/**
 * `whsec_` + 32 random bytes in standard base64 (every byte uniform, no modulo bias): one text
 * that both schemes take as it is (signature.ts): Stripe's uses the whole text as the HMAC key,
 * Standard Webhooks' verifiers decode the base64 after the prefix (they refuse base64url, which
 * secrets minted before both schemes were sent use: see webhooks/README.md for converting one).
 */
export function mintSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The secret name of an endpoint's nth signing secret (one secret per generation, so a cached
 * read is never stale). It lives in the endpoint's project namespace (the secret id is
 * `tessera-{projectId}-webhook-{endpointId}-{generation}`, secrets/store.ts), so it carries its
 * project, and reads check that a record names its own endpoint's secrets (`activeSecretRefs`).
 */
export function signingSecretRef(endpointId: string, generation: number): string {
  return `webhook-${endpointId}-${generation}`;
}

/** Refuses a record whose reference is not the name its endpoint and generation give. */
function ownSecretRef(endpointId: string, secret: { ref: string; generation: number }): string {
  if (secret.ref !== signingSecretRef(endpointId, secret.generation)) {
    throw new SecretUnavailableError(secret.ref, `not signing secret ${secret.generation} of webhook endpoint ${endpointId}`);
  }
  return secret.ref;
}

/**
 * References that sign a delivery at `now`, in header order: the current secret, then the
 * previous one while its grace lasts. The previous one comes last because the public node SDK's
 * verifier reads only the last `v1`: a receiver still holding the old secret keeps verifying
 * until the grace ends.
 */
export function activeSecretRefs(record: Pick<DeliveryTarget, 'endpointId' | 'secret' | 'previousSecret'>, now: number): string[] {
  const previous = record.previousSecret && record.previousSecret.expiresAt > now ? [ownSecretRef(record.endpointId, record.previousSecret)] : [];
  return [ownSecretRef(record.endpointId, record.secret), ...previous];
}
