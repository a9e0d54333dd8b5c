import type Stripe from 'stripe';
import { stripeLibrary } from '../rails/stripe/library';
import type { MigrationDeps } from './deps';
import { readRailsConfig } from '../rails/config';
import type { EnvScope } from '../store/scope';

/**
 * The card processor's view of one customer for the migration gate, read through the official
 * `stripe` library with the project's Stripe secret key (resolved from the secret store at the
 * moment of use, never stored or logged).
 */
export interface StripeSubscriptionView {
  id: string;
  status: string;
  /** Product and price ids of the subscription's items (the catalog may name either). */
  productRefs: string[];
}

export type StripeCustomerView = { readable: true; subscriptions: StripeSubscriptionView[] } | { readable: false; reason: string };

/** Reads one Stripe customer's subscriptions (all statuses); builds the client once per migration. */
export class StripeSubscriptionReader {
  private client: Promise<{ stripe: Stripe } | { unavailable: string }> | null = null;

  constructor(
    private readonly deps: MigrationDeps,
    private readonly scope: EnvScope,
  ) {}

  async read(customerId: string): Promise<StripeCustomerView> {
    const client = await this.stripe();
    if ('unavailable' in client) return { readable: false, reason: client.unavailable };
    try {
      const subscriptions = await client.stripe.subscriptions.list({ customer: customerId, status: 'all', limit: 100 }).autoPagingToArray({ limit: 1000 });
      return {
        readable: true,
        subscriptions: subscriptions.map((sub) => ({
          id: sub.id,
          status: sub.status,
          productRefs: sub.items.data.flatMap((item) => {
            const product = typeof item.price.product === 'string' ? item.price.product : item.price.product.id;
            return [product, item.price.id];
          }),
        })),
      };
    } catch (err) {
      // Only the library's error type and code: messages may echo request details.
      const { errors } = await stripeLibrary();
      const type = err instanceof errors.StripeError ? `${err.type}${err.code ? `:${err.code}` : ''}` : 'network';
      return { readable: false, reason: `stripe_unreadable:${type}` };
    }
  }

  private stripe(): Promise<{ stripe: Stripe } | { unavailable: string }> {
    this.client ??= (async () => {
      const config = await readRailsConfig(this.scope);
      if (!config.stripe) return { unavailable: 'stripe_not_configured' };
      let secretKey: string;
      try {
        secretKey = await this.deps.secrets.read(this.scope.projectId, config.stripe.secretKeyRef);
      } catch {
        return { unavailable: 'stripe_secret_unavailable' };
      }
      const api = this.deps.rails.stripe.api;
      const StripeClient = await stripeLibrary();
      return { stripe: new StripeClient(secretKey, { ...api, maxNetworkRetries: 1, timeout: 20_000, telemetry: false }) };
    })();
    return this.client;
  }
}
