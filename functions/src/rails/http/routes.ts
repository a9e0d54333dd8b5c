import { route } from '../../http/route';
import { handleAppleNotification } from './appleNotification';
import { handleGoogleNotification } from './googleNotification';
import { handleStripeNotification } from './stripeNotification';
import type { RailRoutePorts } from './ports';

/**
 * Inbound rail notifications, mounted by app/groups.ts in the `webhooks` group. They take no
 * API key: each verifies itself the way its rail documents, on the raw body, before any
 * environment-scoped data is touched. `rawBody`: the pipeline hands them the bytes unparsed,
 * so a body is judged (and a verified but unusable one journaled) only after verification.
 */
export const stripeWebhookRoute = route<unknown, Record<string, string>, RailRoutePorts>({
  method: 'POST',
  path: '/v1/webhooks/stripe/:projectId',
  key: 'none',
  rawBody: true,
  cacheControl: 'no-store',
  handler: handleStripeNotification,
});

export const appleWebhookRoute = route<unknown, Record<string, string>, RailRoutePorts>({
  method: 'POST',
  path: '/v1/webhooks/apple/:projectId',
  key: 'none',
  rawBody: true,
  cacheControl: 'no-store',
  handler: handleAppleNotification,
});

export const googleWebhookRoute = route<unknown, Record<string, string>, RailRoutePorts>({
  method: 'POST',
  path: '/v1/webhooks/google/:projectId',
  key: 'none',
  rawBody: true,
  cacheControl: 'no-store',
  handler: handleGoogleNotification,
});

/** The routes of this capability, mounted by app/groups.ts. */
export const webhookRoutes = [stripeWebhookRoute, appleWebhookRoute, googleWebhookRoute];
