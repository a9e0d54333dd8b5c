import Stripe from 'stripe';
import type supertest from 'supertest';
import type { Settings } from '../../../functions/src/config/settings';
import type { AuditEntry } from '../../../functions/src/audit/model';
import { auditRef } from '../../../functions/src/audit/append';
import { setProduct } from '../../../functions/src/entitlements/catalog';
import { findCustomerIdByIdentity } from '../../../functions/src/customers/lookup';
import type { IdentityKind } from '../../../functions/src/customers/model';
import { writeRailConfig } from '../../../functions/src/rails/config';
import { subscriptionRef } from '../../../functions/src/rails/decision';
import type { SubscriptionRecord } from '../../../functions/src/rails/model';
import { LocalSecretStore, secretEnvVarName } from '../../../functions/src/secrets/store';
import type { Env } from '../../../functions/src/store/env';
import { EnvScope } from '../../../functions/src/store/scope';
import type { InProcessTaskQueue } from '../../../functions/src/tasks/inProcessQueue';
import { createTestService, seedProject, type SeededProject, type TestService } from '../../support/harness';
import { AppleChain } from './appleChain';
import { APP_APPLE_ID, APPLE_BUNDLE_ID } from './applePayloads';
import { GoogleFake, PUSH_SERVICE_ACCOUNT } from './googleFake';
import { StripeFake } from './stripeFake';

/**
 * One project wired to all three rails, with the real verifiers and local fakes for the rails'
 * APIs: an App Store-shaped certificate chain made here, Stripe's API on 127.0.0.1 (webhooks
 * signed with the `stripe` library's own test-header helper), and Google's push-token keys and
 * Play Developer API on 127.0.0.1. Catalog: apple `pro_monthly` → pro, `pro_yearly` → pro +
 * cloud_sync, stripe `prod_pro` → pro, google `pro_monthly` → pro; the same in both environments.
 */
export const WEBHOOK_SECRETS: Record<Env, string> = { test: 'whsec_test_tessera_rails_suite', live: 'whsec_live_tessera_rails_suite' };
export const PLAY_PACKAGE = 'com.example.android';
export const PLAY_SERVICE_ACCOUNT = { type: 'service_account', client_email: 'play-reader@example-project.iam.gserviceaccount.com', private_key: 'not-used-by-the-fake' };

export interface RailsWorld {
  service: TestService;
  project: SeededProject;
  apple: AppleChain;
  stripe: StripeFake;
  google: GoogleFake;
  /** Service accounts the Play API client was built from (read from the secret store). */
  playCredentialsSeen: string[];
  pushAudience: string;
  scope(env: Env): EnvScope;
  stop(): Promise<void>;
}

/**
 * `edges: 'settings'` reaches the fakes the way `npm start` would, through the stand-in
 * settings (TESSERA_APPLE_ONLINE_CHECKS, TESSERA_STRIPE_API_URL, TESSERA_PLAY_API_URL,
 * TESSERA_GOOGLE_PUSH_JWKS_URL) instead of injected overrides.
 */
export async function createRailsWorld(options: { edges?: 'overrides' | 'settings'; tasks?: InProcessTaskQueue; settings?: Partial<Settings> } = {}): Promise<RailsWorld> {
  const apple = new AppleChain();
  const stripe = await new StripeFake().start();
  const google = await new GoogleFake().start();
  const playCredentialsSeen: string[] = [];
  const standInSettings: Record<string, string> = {
    TESSERA_APPLE_ONLINE_CHECKS: 'off',
    TESSERA_STRIPE_API_URL: `http://127.0.0.1:${stripe.port}`,
    TESSERA_PLAY_API_URL: google.playRootUrl,
    TESSERA_GOOGLE_PUSH_JWKS_URL: google.jwksUrl,
  };
  const previousSettings = Object.fromEntries(Object.keys(standInSettings).map((name) => [name, process.env[name]]));
  if (options.edges === 'settings') Object.assign(process.env, standInSettings);
  // Filled once the project exists: every secret lives in its project's namespace.
  const secretEnvironment: Record<string, string> = {};
  const secrets = new LocalSecretStore({ file: null, environment: secretEnvironment });
  const service = createTestService({
    tasks: options.tasks,
    secrets,
    ...(options.settings ? { settings: options.settings } : {}),
    rails: options.edges === 'settings' ? undefined : {
      appleOnlineChecks: false,
      stripeApi: { host: '127.0.0.1', port: stripe.port, protocol: 'http' },
      google: {
        pushJwksUrl: google.jwksUrl,
        playRootUrl: google.playRootUrl,
        playAuth: async (serviceAccountJson) => {
          playCredentialsSeen.push((JSON.parse(serviceAccountJson) as { client_email: string }).client_email);
          return 'play-api-key-for-the-fake';
        },
      },
    },
  });
  const project = await seedProject(service);
  Object.assign(secretEnvironment, {
    [secretEnvVarName(project.projectId, 'stripe-test-secret-key')]: 'sk_test_rails_suite',
    [secretEnvVarName(project.projectId, 'stripe-live-secret-key')]: 'sk_live_rails_suite',
    [secretEnvVarName(project.projectId, 'stripe-test-webhook-secret')]: WEBHOOK_SECRETS.test,
    [secretEnvVarName(project.projectId, 'stripe-live-webhook-secret')]: WEBHOOK_SECRETS.live,
    [secretEnvVarName(project.projectId, 'play-service-account')]: JSON.stringify(PLAY_SERVICE_ACCOUNT),
  });
  const pushAudience = `https://tessera.example.com/v1/webhooks/google/${project.projectId}`;
  const scope = (env: Env) => new EnvScope(service.deps.db, project.projectId, env);
  const now = service.clock.now();
  for (const env of ['test', 'live'] as const) {
    await writeRailConfig(scope(env), 'apple', { bundleId: APPLE_BUNDLE_ID, appAppleId: APP_APPLE_ID, rootCertificates: [apple.rootBase64] }, now);
    await writeRailConfig(scope(env), 'stripe', { secretKeyRef: `stripe-${env}-secret-key`, webhookSecretRef: `stripe-${env}-webhook-secret` }, now);
    await setProduct(scope(env), 'apple', 'pro_monthly', ['pro'], now);
    await setProduct(scope(env), 'apple', 'pro_yearly', ['pro', 'cloud_sync'], now);
    await setProduct(scope(env), 'stripe', 'prod_pro', ['pro'], now);
    await setProduct(scope(env), 'google', 'pro_monthly', ['pro'], now);
  }
  // Play notifications arrive on one push subscription: configured for production.
  await writeRailConfig(scope('live'), 'google', { packageName: PLAY_PACKAGE, serviceAccountRef: 'play-service-account', pushAudience, pushServiceAccountEmail: PUSH_SERVICE_ACCOUNT }, now);
  return {
    service,
    project,
    apple,
    stripe,
    google,
    playCredentialsSeen,
    pushAudience,
    scope,
    stop: async () => {
      for (const [name, value] of Object.entries(previousSettings)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      await stripe.stop();
      await google.stop();
    },
  };
}

/** Posts a Stripe event signed like Stripe signs it (the library's own test-header helper). */
export function postStripe(world: RailsWorld, event: Record<string, unknown>, options: { secret?: string; timestamp?: number; projectId?: string } = {}): supertest.Test {
  const payload = JSON.stringify(event);
  const secret = options.secret ?? WEBHOOK_SECRETS[event.livemode === true ? 'live' : 'test'];
  const header = Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp: options.timestamp });
  return world.service
    .request()
    .post(`/v1/webhooks/stripe/${options.projectId ?? world.project.projectId}`)
    .set('Content-Type', 'application/json')
    .set('Stripe-Signature', header)
    .send(payload);
}

export function postApple(world: RailsWorld, signedPayload: string): supertest.Test {
  return world.service.request().post(`/v1/webhooks/apple/${world.project.projectId}`).set('Content-Type', 'application/json').send({ signedPayload });
}

export function postGoogle(world: RailsWorld, body: Record<string, unknown>, token: string | null): supertest.Test {
  const req = world.service.request().post(`/v1/webhooks/google/${world.project.projectId}`).set('Content-Type', 'application/json');
  if (token !== null) req.set('Authorization', `Bearer ${token}`);
  return req.send(body);
}

export async function auditOf(world: RailsWorld, env: Env, eventId: string): Promise<AuditEntry | null> {
  const snapshot = await auditRef(world.scope(env), eventId).get();
  return snapshot.exists ? (snapshot.data() as AuditEntry) : null;
}

export async function subscriptionOf(world: RailsWorld, env: Env, rail: 'apple' | 'stripe' | 'google', subscriptionId: string): Promise<SubscriptionRecord | null> {
  const snapshot = await subscriptionRef(world.scope(env), rail, subscriptionId).get();
  return snapshot.exists ? (snapshot.data() as SubscriptionRecord) : null;
}

export function customerOf(world: RailsWorld, env: Env, kind: IdentityKind, id: string): Promise<string | null> {
  return findCustomerIdByIdentity(world.scope(env), kind, id);
}

export interface PublicEntitlementBody {
  key: string;
  isActive: boolean;
  validUntil: number | null;
  source: { rail: string; productId: string; subscriptionId: string };
}

/** The customer's entitlements through the server read endpoint (secret key of the environment). */
export async function entitlementsOf(world: RailsWorld, env: Env, customerId: string): Promise<PublicEntitlementBody[]> {
  const res = await world.service
    .request()
    .get(`/v1/server/customers/${customerId}/entitlements`)
    .set('Authorization', `Bearer ${world.project.ios[env].secret}`);
  if (res.status !== 200) throw new Error(`entitlements read failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as PublicEntitlementBody[];
}

export const activeKeys = (entitlements: PublicEntitlementBody[]): string[] => entitlements.filter((e) => e.isActive).map((e) => e.key).sort();

/**
 * How many documents each collection of both partitions holds (`test/audit: 12`, …): compared
 * before and after a request to prove it wrote nothing (tests in one file run one at a time).
 */
export async function storedDocuments(world: RailsWorld): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const env of ['test', 'live'] as const) {
    const partition = world.scope(env).collection('audit').parent!;
    for (const collection of await partition.listCollections()) {
      counts[`${env}/${collection.id}`] = (await collection.count().get()).data().count;
    }
  }
  return counts;
}
