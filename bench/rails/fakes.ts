import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

/**
 * Local stand-ins for the rails' APIs during `npm run bench` (the service's verifiers and
 * clients are real; only their network edges point here): Stripe's `GET /v1/subscriptions/{id}`,
 * Google's push-token JWKS and the Play Developer API's `subscriptionsv2.get`, each answering a
 * fixed active subscription. Their latency is a local round trip, not the rails'.
 */
export interface RailFakes {
  url: string;
  port: number;
  jwksUrl: string;
  pushToken(audience: string): Promise<string>;
  close(): void;
}

export async function startRailFakes(): Promise<RailFakes> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'bench', alg: 'RS256', use: 'sig' };
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    req.resume();
    let body: unknown = { error: { code: 404 } };
    let status = 404;
    const now = Math.floor(Date.now() / 1000);
    if (path === '/oauth2/v3/certs') [status, body] = [200, { keys: [jwk] }];
    const stripe = /^\/v1\/subscriptions\/([A-Za-z0-9_]+)$/.exec(path);
    if (stripe) {
      status = 200;
      body = {
        id: stripe[1],
        object: 'subscription',
        customer: `cus_${stripe[1]}`,
        status: 'active',
        cancel_at_period_end: false,
        metadata: {},
        items: { object: 'list', data: [{ current_period_start: now - 60, current_period_end: now + 30 * 86_400, price: { product: 'prod_pro' } }] },
      };
    }
    if (path.startsWith('/androidpublisher/v3/applications/')) {
      status = 200;
      body = {
        subscriptionState: 'SUBSCRIPTION_STATE_ACTIVE',
        startTime: new Date(Date.now() - 60_000).toISOString(),
        lineItems: [{ productId: 'pro_monthly', expiryTime: new Date(Date.now() + 30 * 86_400_000).toISOString(), autoRenewingPlan: { autoRenewEnabled: true } }],
      };
    }
    req.on('end', () => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    jwksUrl: `${url}/oauth2/v3/certs`,
    pushToken: (audience) => signPushToken(privateKey, audience),
    close: () => server.close(),
  };
}

function signPushToken(key: CryptoKey, audience: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ email: 'bench-push@example.iam.gserviceaccount.com', email_verified: true })
    .setProtectedHeader({ alg: 'RS256', kid: 'bench' })
    .setIssuer('https://accounts.google.com')
    .setAudience(audience)
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .sign(key);
}
