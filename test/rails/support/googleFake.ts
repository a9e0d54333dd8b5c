import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { startFakeServer, type FakeServer } from './fakeServer';

/**
 * Local stand-ins for Google: the JWKS that signs Pub/Sub push tokens (the test signs tokens
 * with its private half) and the Play Developer API's `purchases.subscriptionsv2.get`.
 */
export const PUSH_ISSUER = 'https://accounts.google.com';
export const PUSH_SERVICE_ACCOUNT = 'rtdn-push@example-project.iam.gserviceaccount.com';

export class GoogleFake {
  /** Play's view of each purchase token. */
  readonly purchases = new Map<string, Record<string, unknown>>();
  /** Tokens whose reads fail with 503 (the API is down for them). */
  readonly failing = new Set<string>();
  private server: FakeServer | null = null;
  private privateKey: CryptoKey | null = null;
  private jwk: JWK | null = null;
  readonly kid = 'test-push-key';

  async start(): Promise<this> {
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    this.privateKey = privateKey;
    this.jwk = { ...(await exportJWK(publicKey)), kid: this.kid, alg: 'RS256', use: 'sig' };
    this.server = await startFakeServer((req, path) => {
      if (path === '/oauth2/v3/certs') return { status: 200, body: { keys: [this.jwk] } };
      const match = /^\/androidpublisher\/v3\/applications\/([^/]+)\/purchases\/subscriptionsv2\/tokens\/([^/]+)$/.exec(path);
      if (req.method === 'GET' && match) {
        const token = decodeURIComponent(match[2]);
        if (this.failing.has(token)) return { status: 503, body: { error: { code: 503, message: 'Backend Error', status: 'UNAVAILABLE' } } };
        const purchase = this.purchases.get(token);
        if (purchase) return { status: 200, body: purchase };
        return { status: 404, body: { error: { code: 404, message: 'The purchase token was not found.', status: 'NOT_FOUND' } } };
      }
      return { status: 404, body: { error: { code: 404, message: 'not found' } } };
    });
    return this;
  }

  get jwksUrl(): string {
    return `${this.server!.url}/oauth2/v3/certs`;
  }

  get playRootUrl(): string {
    return `${this.server!.url}/`;
  }

  /** Requests the Play API received (with the credential it was called with). */
  get playRequests() {
    return this.server!.requests.filter((r) => r.path.startsWith('/androidpublisher/'));
  }

  async pushToken(fields: { audience: string; email?: string; issuer?: string; expiresInSeconds?: number; emailVerified?: boolean }): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ email: fields.email ?? PUSH_SERVICE_ACCOUNT, email_verified: fields.emailVerified ?? true })
      .setProtectedHeader({ alg: 'RS256', kid: this.kid, typ: 'JWT' })
      .setIssuer(fields.issuer ?? PUSH_ISSUER)
      .setAudience(fields.audience)
      .setSubject('112233445566778899000')
      .setIssuedAt(now - 5)
      .setExpirationTime(now + (fields.expiresInSeconds ?? 3600))
      .sign(this.privateKey!);
  }

  async stop(): Promise<void> {
    await this.server?.close();
  }
}

let sequence = 0;
export const nextPurchaseToken = (): string => `token.${Date.now().toString(36)}.${(sequence += 1)}-AO-J1Oy${'x'.repeat(60)}`;

/** A SubscriptionPurchaseV2 as `subscriptionsv2.get` returns it. */
export function playPurchase(fields: {
  state?: string;
  productId?: string;
  expiryTime?: number;
  testPurchase?: boolean;
  obfuscatedAccountId?: string;
  linkedPurchaseToken?: string;
  autoRenew?: boolean;
}): Record<string, unknown> {
  const purchase: Record<string, unknown> = {
    kind: 'androidpublisher#subscriptionPurchaseV2',
    regionCode: 'US',
    startTime: new Date(Date.now() - 60_000).toISOString(),
    subscriptionState: fields.state ?? 'SUBSCRIPTION_STATE_ACTIVE',
    latestOrderId: `GPA.1234-5678-9012-${sequence}`,
    acknowledgementState: 'ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED',
    lineItems: [
      {
        productId: fields.productId ?? 'pro_monthly',
        expiryTime: new Date(fields.expiryTime ?? Date.now() + 30 * 86_400_000).toISOString(),
        autoRenewingPlan: { autoRenewEnabled: fields.autoRenew ?? true },
      },
    ],
  };
  if (fields.testPurchase) purchase.testPurchase = {};
  if (fields.obfuscatedAccountId) purchase.externalAccountIdentifiers = { obfuscatedExternalAccountId: fields.obfuscatedAccountId };
  if (fields.linkedPurchaseToken) purchase.linkedPurchaseToken = fields.linkedPurchaseToken;
  return purchase;
}

/** A Pub/Sub push body carrying a developer notification. */
export function pushBody(notification: Record<string, unknown>, messageId = `${Date.now()}${(sequence += 1)}`): Record<string, unknown> {
  return {
    message: {
      data: Buffer.from(JSON.stringify(notification)).toString('base64'),
      messageId,
      message_id: messageId,
      publishTime: new Date().toISOString(),
      attributes: {},
    },
    subscription: 'projects/example-project/subscriptions/play-rtdn',
  };
}
