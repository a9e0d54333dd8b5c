import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Stripe from 'stripe';
import { setProduct } from '#functions/entitlements/catalog';
import { getApp } from '#functions/projects/repository';
import { writeRailConfig } from '#functions/rails/config';
import { secretEnvVarName } from '#functions/secrets/store';
import type { Env } from '#functions/store/env';
import { EnvScope } from '#functions/store/scope';
import { LocalSecretWriter } from '#functions/secrets/writer';
import { createEndpoint } from '#functions/webhooks/endpoints';
import { signingSecretRef } from '#functions/webhooks/signingSecret';
import { AppleChain } from '../../fixtures/appleChain';
import { signedNotification, transactionPayload } from '../../fixtures/applePayloads';
import { startRailFakes, type RailFakes } from '../rails/fakes';
import { railNotificationFloor } from '../railFloor';
import type { RailWiring } from '../serverProtocol';
import type { BenchContext, BenchRequest, Scenario } from '../scenario';

/**
 * Purchases and rails: purchase sync (a renewal of one App Store subscription per request) and
 * one notification per rail. Apple's verifier, Stripe's signature check, the push-token check
 * and the Play / Stripe API clients are the real ones; the certificate chain is made here and
 * the rails' APIs are local fakes (startRailFakes), so the latencies exclude the rails' own.
 * Every request is a new event that runs the full decision transaction. The webhook scenarios
 * announce a new subscriber per request (its customer created in the decision's transaction:
 * 4 round trips), the way many subscribers' notifications arrive side by side; purchase sync renews
 * one subscription (one client: decisions about one subscription are serialised).
 */
const BUNDLE_ID = 'com.tessera.bench';
const PACKAGE_NAME = 'com.tessera.bench.android';
const STRIPE_WEBHOOK_SECRET = 'whsec_bench_tessera';
const chain = new AppleChain();
let fakes: Promise<RailFakes> | null = null;

/** Where a process's rail edges point for the project: the local fakes, and the secrets its local store reads. */
async function railWiring(ctx: BenchContext): Promise<{ fakes: RailFakes; wiring: RailWiring }> {
  const started = await (fakes ??= startRailFakes());
  const wiring: RailWiring = {
    fakesUrl: started.url,
    fakesPort: started.port,
    jwksUrl: started.jwksUrl,
    // The server's local secret store reads references from its environment.
    // References resolve in the project's namespace (secrets/store.ts).
    secrets: {
      [secretEnvVarName(ctx.project.projectId, 'bench-stripe-secret-key')]: 'sk_test_bench',
      [secretEnvVarName(ctx.project.projectId, 'bench-stripe-webhook-secret')]: STRIPE_WEBHOOK_SECRET,
      [secretEnvVarName(ctx.project.projectId, 'bench-play-service-account')]: JSON.stringify({ type: 'service_account', client_email: 'bench@example.iam.gserviceaccount.com' }),
    },
  };
  return { fakes: started, wiring };
}

/** Points the rails' network edges at the local fakes and configures the project's rails. */
async function wireRails(ctx: BenchContext): Promise<{ fakes: RailFakes; pushAudience: string }> {
  const { fakes: started, wiring } = await railWiring(ctx);
  await ctx.server.wireRails(wiring);
  const now = ctx.deps.clock.now();
  const pushAudience = `https://tessera.bench/v1/webhooks/google/${ctx.project.projectId}`;
  for (const env of ['test', 'live'] as Env[]) {
    const scope = new EnvScope(ctx.deps.db, ctx.project.projectId, env);
    await writeRailConfig(scope, 'apple', { bundleId: BUNDLE_ID, appAppleId: 1, rootCertificates: [chain.rootBase64] }, now);
    await writeRailConfig(scope, 'stripe', { secretKeyRef: 'bench-stripe-secret-key', webhookSecretRef: 'bench-stripe-webhook-secret' }, now);
    await setProduct(scope, 'apple', 'pro_monthly', ['pro'], now);
    await setProduct(scope, 'stripe', 'prod_pro', ['pro'], now);
    await setProduct(scope, 'google', 'pro_monthly', ['pro'], now);
  }
  const live = new EnvScope(ctx.deps.db, ctx.project.projectId, 'live');
  await writeRailConfig(live, 'google', { packageName: PACKAGE_NAME, serviceAccountRef: 'bench-play-service-account', pushAudience }, now);
  return { fakes: started, pushAudience };
}

/** Issue 23: a rail notification in at most 6 store round trips, 200 per second from 10 clients. */
const RAIL_NOTIFICATION_TARGET = { source: 'issue 23', roundTrips: 6, requestsPerSecond: 200 };

/** The notification's own store floor (bench/railFloor.ts): its store calls recorded in this process, replayed after the row. */
const railFloor = (path: string): Pick<Scenario, 'storeCallsFloor'> => ({
  storeCallsFloor: async (ctx, request) => railNotificationFloor(request, (await railWiring(ctx)).wiring, path),
});

let sequence = 0;
const next = () => (sequence += 1);

/** A new subscriber per request: `customer.subscription.created` of a new subscription and customer. */
function stripeCreatedRequest(ctx: BenchContext): BenchRequest {
  return {
    method: 'POST',
    path: `/v1/webhooks/stripe/${ctx.project.projectId}`,
    nextBody: () => {
      const n = next();
      const subscriptionId = `sub_bench${process.pid}x${n}`;
      return JSON.stringify({
        id: `evt_bench_${process.pid}_${n}`,
        object: 'event',
        created: Math.floor(Date.now() / 1000),
        livemode: false,
        type: 'customer.subscription.created',
        data: { object: { id: subscriptionId, object: 'subscription', customer: `cus_${subscriptionId}`, status: 'active' } },
      });
    },
    headersFor: (body) => ({ 'Stripe-Signature': Stripe.webhooks.generateTestHeaderString({ payload: body, secret: STRIPE_WEBHOOK_SECRET }) }),
  };
}

/** One enabled test endpoint subscribed to every type, on a loopback receiver answering 200; the server and worker get its secret. */
async function subscribeOneEndpoint(ctx: BenchContext): Promise<void> {
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end('ok'));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiver.unref();
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  const file = join(mkdtempSync(join(tmpdir(), 'tessera-bench-rails-hook-')), 'secrets.json');
  const scope = new EnvScope(ctx.deps.db, ctx.project.projectId, 'test');
  const { endpoint, secret } = await createEndpoint(scope, { url, eventTypes: [], allowLoopbackHttp: true }, { secrets: new LocalSecretWriter(file), now: ctx.deps.clock.now(), surface: 'bench' });
  await ctx.server.setSecrets({ [secretEnvVarName(ctx.project.projectId, signingSecretRef(endpoint.endpointId, endpoint.secretGeneration))]: secret });
}

export const railScenarios: Scenario[] = [
  {
    name: 'POST /v1/purchases/sync, App Store renewal per request, 1 client (purchases bucket: burst 100, then 10/s)',
    note: 'Apple verifier (chain, markers, signature) + customer by originalTransactionId + one decision transaction',
    connections: 1,
    prepare: async (ctx) => {
      await wireRails(ctx);
      const ios = ctx.project.apps.find((app) => app.platform === 'ios')!;
      const bundleId = (await getApp(ctx.deps.db, ios.appId)).bundleId ?? '';
      const originalTransactionId = String(3_000_000_000_000 + Math.floor(Math.random() * 1e9));
      return {
        method: 'POST',
        path: '/v1/purchases/sync',
        headers: { Authorization: `Bearer ${ios.keys.test.publishable}`, 'X-Service-Bundle-Id': bundleId },
        nextBody: () => {
          const n = next();
          const txn = transactionPayload({
            transactionId: `${originalTransactionId}${n}`,
            originalTransactionId,
            bundleId: BUNDLE_ID,
            signedDate: Date.now() + n,
            expiresDate: Date.now() + 30 * 86_400_000 + n * 1000,
          });
          return JSON.stringify({ rail: 'apple', signedTransactionInfo: chain.sign(txn) });
        },
      };
    },
  },
  {
    name: 'POST /v1/webhooks/stripe/{projectId}, customer.subscription.created (new subscriber per request), 10 clients',
    note: 'signature check + Stripe API re-read (local fake) + one read of the identity entries + one decision transaction creating the customer; the project has no webhook endpoint (its events need no fan-out task)',
    target: RAIL_NOTIFICATION_TARGET,
    ...railFloor('POST /v1/webhooks/stripe'),
    connections: 10,
    prepare: async (ctx) => {
      await wireRails(ctx);
      return stripeCreatedRequest(ctx);
    },
  },
  {
    name: 'POST /v1/webhooks/stripe/{projectId}, customer.subscription.created, 1 subscribed webhook endpoint (new subscriber per request), 10 clients',
    note: 'as above, and every notification\'s entitlement.granted event is fanned out (task worker) and POSTed to one loopback receiver answering 200: the cost of a subscriber kept visible',
    connections: 10,
    prepare: async (ctx) => {
      await wireRails(ctx);
      await subscribeOneEndpoint(ctx);
      return stripeCreatedRequest(ctx);
    },
  },
  {
    name: 'POST /v1/webhooks/apple/{projectId}, SUBSCRIBED (new subscriber per request), 10 clients',
    note: 'Apple verifier on the payload and its transaction + one read of the identity entries + one decision transaction creating the customer',
    target: RAIL_NOTIFICATION_TARGET,
    ...railFloor('POST /v1/webhooks/apple'),
    connections: 10,
    prepare: async (ctx) => {
      await wireRails(ctx);
      const base = 4_000_000_000_000 + Math.floor(Math.random() * 1e9) * 1000;
      return {
        method: 'POST',
        path: `/v1/webhooks/apple/${ctx.project.projectId}`,
        nextBody: () => {
          const transaction = transactionPayload({ transactionId: String(base + next()), bundleId: BUNDLE_ID });
          const { signedPayload } = signedNotification(chain, { notificationType: 'SUBSCRIBED', subtype: 'INITIAL_BUY', bundleId: BUNDLE_ID, transaction, status: 1, notificationUUID: randomUUID() });
          return JSON.stringify({ signedPayload });
        },
      };
    },
  },
  {
    name: 'POST /v1/webhooks/google/{projectId}, SUBSCRIPTION_PURCHASED (new subscriber per request), 10 clients',
    note: 'push-token check + Play API re-read (local fake) + one read of the identity entries + one decision transaction creating the customer',
    target: RAIL_NOTIFICATION_TARGET,
    ...railFloor('POST /v1/webhooks/google'),
    connections: 10,
    prepare: async (ctx) => {
      const { fakes: started, pushAudience } = await wireRails(ctx);
      const token = await started.pushToken(pushAudience);
      return {
        method: 'POST',
        path: `/v1/webhooks/google/${ctx.project.projectId}`,
        headers: { Authorization: `Bearer ${token}` },
        nextBody: () => {
          const n = next();
          const messageId = `${process.pid}${n}`;
          const notification = {
            version: '1.0',
            packageName: PACKAGE_NAME,
            eventTimeMillis: String(Date.now()),
            subscriptionNotification: { version: '1.0', notificationType: 4, purchaseToken: `bench.${process.pid}.${n}`, subscriptionId: 'pro_monthly' },
          };
          return JSON.stringify({ message: { data: Buffer.from(JSON.stringify(notification)).toString('base64'), messageId }, subscription: 'projects/bench/subscriptions/rtdn' });
        },
      };
    },
  },
];
