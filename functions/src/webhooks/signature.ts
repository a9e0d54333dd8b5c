import { createHmac } from 'node:crypto';
import type { WebhookEventPayload } from './eventModel';

/**
 * Two signature schemes over the same bytes, with the same secret(s), on every delivery:
 *
 * - `Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>[,v1=…]`
 *   (Stripe's scheme, which the product family's node SDK verifies). The key is the whole secret
 *   text, `whsec_` prefix included, as Stripe's libraries use theirs.
 * - Standard Webhooks (https://www.standardwebhooks.com): `webhook-id` (the event id, the same
 *   at every attempt), `webhook-timestamp` (unix seconds) and `webhook-signature: v1,<base64
 *   HMAC-SHA256(key, "<id>.<timestamp>.<body>")>[ v1,…]`, where the key is the bytes the secret
 *   encodes after `whsec_` (base64; secrets minted before standard base64 used base64url, whose
 *   bytes are decoded the same way). The `standardwebhooks` libraries verify it given the secret.
 *
 * One signature per secret in the order given (the signing order of `activeSecretRefs`: current
 * first, previous last); `body` is the exact bytes sent.
 */
export function signatureHeader(secrets: string[], timestampSeconds: number, body: Buffer): string {
  if (secrets.length === 0) throw new Error('a webhook is signed by at least one secret');
  const signed = Buffer.concat([Buffer.from(`${timestampSeconds}.`, 'utf8'), body]);
  return [`t=${timestampSeconds}`, ...secrets.map((secret) => `v1=${createHmac('sha256', secret).update(signed).digest('hex')}`)].join(',');
}

/** The Standard Webhooks key of a `whsec_…` secret: the bytes of its base64 (or base64url) text. */
export function standardWebhooksKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return Buffer.from(encoded, 'base64');
}

/** `webhook-signature`: `v1,<base64>` per secret, space-separated. */
export function standardSignatureHeader(secrets: string[], messageId: string, timestampSeconds: number, body: Buffer): string {
  if (secrets.length === 0) throw new Error('a webhook is signed by at least one secret');
  const signed = Buffer.concat([Buffer.from(`${messageId}.${timestampSeconds}.`, 'utf8'), body]);
  return secrets.map((secret) => `v1,${createHmac('sha256', standardWebhooksKey(secret)).update(signed).digest('base64')}`).join(' ');
}

export const SECRET_PREFIX = 'whsec_';
const SIGNATURE_HEADER = 'Service-Signature';
const WEBHOOK_ID_HEADER = 'Service-Webhook-Id';
const ATTEMPT_HEADER = 'Service-Webhook-Attempt';
const STANDARD_ID_HEADER = 'webhook-id';
const STANDARD_TIMESTAMP_HEADER = 'webhook-timestamp';
const STANDARD_SIGNATURE_HEADER = 'webhook-signature';
export const USER_AGENT = 'Tessera-Webhooks/1.0';

/** Every header of one attempt: content, ids, the attempt number and both signatures (same timestamp). */
export function signedHeaders(input: { eventId: string; attempt: number; timestampSeconds: number; body: Buffer; secrets: string[] }): Record<string, string> {
  const { eventId, attempt, timestampSeconds, body, secrets } = input;
  return {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    [WEBHOOK_ID_HEADER]: eventId,
    [ATTEMPT_HEADER]: String(attempt),
    [SIGNATURE_HEADER]: signatureHeader(secrets, timestampSeconds, body),
    [STANDARD_ID_HEADER]: eventId,
    [STANDARD_TIMESTAMP_HEADER]: String(timestampSeconds),
    [STANDARD_SIGNATURE_HEADER]: standardSignatureHeader(secrets, eventId, timestampSeconds, body),
  };
}

/**
 * The bytes sent for an event: its payload as JSON in the documented field order (Firestore
 * returns a stored map's fields in its own order), the same bytes at every attempt and replay.
 */
export function eventBody(payload: WebhookEventPayload): Buffer {
  const { id, object, type, created, env, projectId, apiVersion, data } = payload;
  return Buffer.from(JSON.stringify({ id, object, type, created, env, projectId, apiVersion, data }), 'utf8');
}
