import type { Env } from '../store/env';
import { storedRecord } from '../store/converters';

/**
 * A developer's webhook endpoint at `projects/{p}/envs/{env}/webhookEndpoints/{whep_…}`. It
 * holds references to its signing secrets, never their values (those live in the secret store).
 */
export interface WebhookEndpointRecord {
  endpointId: string;
  projectId: string;
  env: Env;
  url: string;
  /** Subscribed types; empty means every type. */
  eventTypes: WebhookEventType[];
  /**
   * null while enabled. `operator`: by `webhooks disable`; `gone`: the receiver answered 410;
   * `failing`: every delivery attempt failed for 3 days (webhooks/deliver.ts).
   */
  disabled: { reason: EndpointDisabledReason; note: string | null; at: number } | null;
  /**
   * When the current run of failed delivery attempts began (null or absent: the last attempt
   * succeeded, or none failed since the endpoint was created or enabled). Written only when it
   * changes, so deliveries do not all write the endpoint.
   */
  failingSince?: number | null;
  createdAt: number;
  updatedAt: number;
  /** Signs every delivery. `generation` counts rotations (1 at creation). */
  secret: { ref: string; generation: number; createdAt: number };
  /** The secret before the last rotation: it still signs until `expiresAt`. */
  previousSecret: { ref: string; generation: number; expiresAt: number } | null;
  /**
   * When the webhook worker deletes the previous secret from the secret store (its grace end);
   * null once deleted (webhooks/secretRetirement.ts). Apart from `previousSecret` so that the
   * worker never changes what signs a delivery.
   */
  previousSecretRetiresAt?: number | null;
}

/**
 * What an attempt needs of its endpoint: where to send, which secrets sign, whether it is
 * disabled or failing. A stored record is one; so is a directory entry with its partition
 * (the fan-out's snapshot, directory.ts).
 */
export type DeliveryTarget = Pick<WebhookEndpointRecord, 'endpointId' | 'projectId' | 'env' | 'url' | 'disabled' | 'failingSince' | 'previousSecret'> & {
  secret: Pick<WebhookEndpointRecord['secret'], 'ref' | 'generation'>;
};

export type EndpointDisabledReason = 'operator' | 'gone' | 'failing';

export const WEBHOOK_ENDPOINTS = 'webhookEndpoints';
/**
 * `webhookMeta/endpointCount`: the limit's guard and the partition's webhook directory
 * (directory.ts), read and written by every endpoint change so that concurrent ones conflict.
 * The id predates the directory and stays (stored documents).
 */
export const WEBHOOK_META = 'webhookMeta';
export const ENDPOINT_COUNT_DOC = 'endpointCount';

/** At most this many enabled endpoints per project and environment (disabled ones do not count; delete frees a place too). */
export const MAX_ENDPOINTS_PER_PARTITION = 10;

/** Types an endpoint may subscribe to (issue 13 §2). `webhook.test` is sent whenever asked, whatever the filter. */
export const WEBHOOK_EVENT_TYPES = [
  'entitlement.granted',
  'entitlement.renewed',
  'entitlement.revoked',
  'entitlement.expired',
  'entitlement.refunded',
  'customer.merged',
  'customer.erased',
  'customer.subscription_transferred',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const TEST_EVENT_TYPE = 'webhook.test';

export const endpointConverter = storedRecord<WebhookEndpointRecord>();
