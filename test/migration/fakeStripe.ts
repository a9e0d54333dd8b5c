import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small local fake of the Stripe API on 127.0.0.1 for the migration gate: `GET
 * /v1/subscriptions?customer=…` answers from an in-memory table in Stripe's list format. In
 * `failing` mode every request gets a 500 with Stripe's error envelope. Records each request's
 * Authorization header so tests can check which secret key the library used.
 */
export interface FakeSubscription {
  id: string;
  status: string;
  product: string;
  price?: string;
}

export class FakeStripe {
  private server: Server | null = null;
  readonly subscriptions = new Map<string, FakeSubscription[]>();
  readonly seenAuthorizations: string[] = [];
  failing = false;
  port = 0;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      this.seenAuthorizations.push(String(req.headers.authorization ?? ''));
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'Content-Type': 'application/json', 'Request-Id': 'req_fake' });
        res.end(JSON.stringify(body));
      };
      if (this.failing) return send(500, { error: { type: 'api_error', message: 'The fake Stripe API is failing on purpose.' } });
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (req.method === 'GET' && url.pathname === '/v1/subscriptions') return send(200, this.list(url, req));
      send(404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: `Unrecognized request URL (${req.method}: ${url.pathname}).` } });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server!.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  get api() {
    return { host: '127.0.0.1', port: this.port, protocol: 'http' as const };
  }

  private list(url: URL, _req: IncomingMessage) {
    const customer = url.searchParams.get('customer') ?? '';
    const status = url.searchParams.get('status');
    const all = this.subscriptions.get(customer) ?? [];
    const visible = status === 'all' ? all : all.filter((s) => s.status !== 'canceled');
    return {
      object: 'list',
      url: '/v1/subscriptions',
      has_more: false,
      data: visible.map((s) => ({
        id: s.id,
        object: 'subscription',
        customer,
        status: s.status,
        livemode: false,
        items: {
          object: 'list',
          has_more: false,
          url: `/v1/subscription_items?subscription=${s.id}`,
          data: [{ id: `si_${s.id}`, object: 'subscription_item', price: { id: s.price ?? `price_${s.product}`, object: 'price', product: s.product } }],
        },
      })),
    };
  }
}
