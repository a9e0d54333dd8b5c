import { createHmac } from 'node:crypto';
import type { WebhookEventPayload } from './eventModel';

/**
 * `Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>[,v1=…]`, one
 * `v1` per secret in the order given (the signing order of `activeSecretRefs`: current first,
 * previous last). The key is the whole secret text, `whsec_` prefix included (as Stripe's
 * libraries use theirs); `body` is the exact bytes sent.
 */
export function signatureHeader(secrets: string[], timestampSeconds: number, body: Buffer): string {
  if (secrets.length === 0) throw new Error('a webhook is signed by at least one secret');
  const signed = Buffer.concat([Buffer.from(`${timestampSeconds}.`, 'utf8'), body]);
  return [`t=${timestampSeconds}`, ...secrets.map((secret) => `v1=${createHmac('sha256', secret).update(signed).digest('hex')}`)].join(',');
}

export const SIGNATURE_HEADER = 'Service-Signature';
export const WEBHOOK_ID_HEADER = 'Service-Webhook-Id';
export const ATTEMPT_HEADER = 'Service-Webhook-Attempt';
export const USER_AGENT = 'Tessera-Webhooks/1.0';

/**
 * The bytes sent for an event: its payload as JSON in the documented field order (Firestore
 * returns a stored map's fields in its own order), the same bytes at every attempt and replay.
 */
export function eventBody(payload: WebhookEventPayload): Buffer {
  const { id, object, type, created, env, projectId, apiVersion, data } = payload;
  return Buffer.from(JSON.stringify({ id, object, type, created, env, projectId, apiVersion, data }), 'utf8');
}
