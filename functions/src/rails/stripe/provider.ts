import { createHash } from 'node:crypto';
import type Stripe from 'stripe';
import { stripeLibrary } from './library';
import type { StripeRailConfig } from '../config';
import type { StripeObject } from './objects';
import type { RailReadPorts } from '../edges';

/**
 * Stripe's current view of a subscription, read with the project's secret key (from the
 * secret store, at the moment of use). Rebuilding state from this read is what keeps
 * out-of-order or concurrent events from regressing it.
 */
const clients = new Map<string, Stripe>();

async function clientFor(deps: RailReadPorts, secretKey: string): Promise<Stripe> {
  const api = deps.rails.stripe.api;
  const cacheKey = createHash('sha256').update(JSON.stringify([secretKey, api])).digest('hex');
  let client = clients.get(cacheKey);
  if (!client) {
    const StripeClient = await stripeLibrary();
    client = new StripeClient(secretKey, { ...api, maxNetworkRetries: 1, timeout: 10_000 });
    if (clients.size >= 32) clients.clear();
    clients.set(cacheKey, client);
  }
  return client;
}

/** The subscription now, or null when Stripe does not know it. Other failures throw (the rail retries). */
export async function readStripeSubscription(deps: RailReadPorts, projectId: string, config: StripeRailConfig, subscriptionId: string): Promise<StripeObject | null> {
  const secretKey = await deps.secrets.read(projectId, config.secretKeyRef);
  try {
    const subscription = await (await clientFor(deps, secretKey)).subscriptions.retrieve(subscriptionId);
    return subscription as unknown as StripeObject;
  } catch (err) {
    if ((err as { code?: unknown }).code === 'resource_missing') return null;
    throw err;
  }
}
