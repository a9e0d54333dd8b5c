import type Stripe from 'stripe';

let library: Promise<typeof Stripe> | undefined;

/**
 * Stripe's library (~200 ms to load) is loaded by the first request that uses it, so the
 * server and webhook groups' instances do not pay for it at cold start.
 */
export function stripeLibrary(): Promise<typeof Stripe> {
  library ??= import('stripe').then((module) => module.default);
  return library;
}
