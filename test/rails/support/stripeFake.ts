import { startFakeServer, type FakeServer } from './fakeServer';

/**
 * A local stand-in for Stripe's API (the library is pointed at it with host/port/protocol):
 * it serves the subscriptions a test has put there, as `GET /v1/subscriptions/{id}` does.
 */
export class StripeFake {
  readonly subscriptions = new Map<string, Record<string, unknown>>();
  /** Subscriptions whose reads fail with 500 (the API is down for them). */
  readonly failing = new Set<string>();
  private server: FakeServer | null = null;

  async start(): Promise<this> {
    this.server = await startFakeServer((req, path) => {
      const match = /^\/v1\/subscriptions\/([A-Za-z0-9_]+)$/.exec(path);
      if (match && this.failing.has(match[1])) return { status: 500, body: { error: { type: 'api_error', message: 'An unknown error occurred' } } };
      if (req.method === 'GET' && match && this.subscriptions.has(match[1])) return { status: 200, body: this.subscriptions.get(match[1]) };
      return { status: 404, body: { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such subscription: '${match?.[1] ?? path}'` } } };
    });
    return this;
  }

  get port(): number {
    return this.server!.port;
  }

  get reads(): number {
    return this.server!.requests.length;
  }

  async stop(): Promise<void> {
    await this.server?.close();
  }
}

let counter = 0;
const unique = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(counter += 1)}`;
export const stripeIds = { customer: () => unique('cus'), subscription: () => unique('sub'), invoice: () => unique('in'), charge: () => unique('ch'), paymentIntent: () => unique('pi'), event: () => unique('evt') };

/** A subscription object in the current API shape (periods on the items). */
export function stripeSubscription(fields: {
  id: string;
  customer: string;
  product?: string;
  status?: string;
  periodStart?: number;
  periodEnd?: number;
  cancelAtPeriodEnd?: boolean;
  metadata?: Record<string, string>;
  latestInvoice?: string;
  livemode?: boolean;
}): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return {
    id: fields.id,
    object: 'subscription',
    customer: fields.customer,
    status: fields.status ?? 'active',
    cancel_at_period_end: fields.cancelAtPeriodEnd ?? false,
    cancel_at: null,
    canceled_at: null,
    ended_at: fields.status === 'canceled' ? now : null,
    livemode: fields.livemode ?? false,
    metadata: fields.metadata ?? {},
    latest_invoice: fields.latestInvoice ?? null,
    items: {
      object: 'list',
      data: [
        {
          id: `si_${fields.id}`,
          object: 'subscription_item',
          current_period_start: fields.periodStart ?? now - 60,
          current_period_end: fields.periodEnd ?? now + 30 * 86_400,
          price: { id: `price_${fields.product ?? 'prod_pro'}`, object: 'price', product: fields.product ?? 'prod_pro' },
        },
      ],
    },
  };
}

export function stripeEvent(type: string, object: Record<string, unknown>, fields: { id?: string; created?: number; livemode?: boolean } = {}): Record<string, unknown> {
  return {
    id: fields.id ?? stripeIds.event(),
    object: 'event',
    api_version: '2025-09-30.clover',
    created: fields.created ?? Math.floor(Date.now() / 1000),
    livemode: fields.livemode ?? false,
    type,
    data: { object },
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
  };
}
