import type { Firestore } from 'firebase-admin/firestore';
import { systemClock, type Clock } from '../clock';
import { describeSettings, loadSettings, type Settings } from '../config/settings';
import { logs } from '../http/logs';
import { KeyAuthenticator } from '../keys/authenticate';
import { FirestoreBucketStore, type BucketStore } from '../ratelimit/bucketStore';
import { RateLimiter } from '../ratelimit/limiter';
import { db as defaultDb } from '../store/firestore';
import { InProcessTaskQueue } from '../tasks/inProcessQueue';
import type { TaskQueue } from '../tasks/queue';
import { firestoreLiveness, type LivenessRecorder } from '../sdk/liveness';
import { createSecretStore, type SecretStore } from '../secrets/store';
import { deferredOperatorSecretWriter, type SecretWriter } from '../secrets/writer';
import { createRailEdges, railStandIns, type RailEdgeOverrides, type RailEdges } from '../rails/edges';
import { JoseIdTokenVerifier, type IdTokenVerifier } from '../identity/idTokens';
import type { DeliveryOverrides } from '../webhooks/deliveryPolicy';
import { OperatorAuthenticator } from '../dashboard/authenticator';
import { firebaseIdTokenVerifier, type OperatorTokenVerifier } from '../dashboard/firebaseTokens';

/**
 * Everything a handler may use, built once per process. The deployed functions, the local
 * runner and the tests build the same object; only the edges differ (clock, queue, storage).
 * No Firestore handle: handlers reach data through their request's `EnvScope` only.
 */
export interface Deps {
  clock: Clock;
  settings: Settings;
  keys: KeyAuthenticator;
  limiter: RateLimiter;
  tasks: TaskQueue;
  liveness: LivenessRecorder;
  /** Rail credentials by reference (Secret Manager deployed, env vars / .secrets.local.json locally). */
  secrets: SecretStore;
  /** Rail network edges: Apple verifiers, Stripe API, Google push-token keys, Play Developer API. */
  rails: RailEdges;
  /** Verifies developers' identity tokens against each project's identity provider. */
  idTokens: IdTokenVerifier;
  /** Outbound webhook delivery seams (timeout, retry delay, DNS); absent: the production defaults. */
  webhookDelivery?: DeliveryOverrides;
  /** Dashboard operators: sign-in (Firebase ID tokens; the local link) and per-project roles. */
  operators: OperatorAuthenticator;
}

/**
 * Deps plus the process's unscoped Firestore handle, for the code that establishes a scope
 * itself (task handlers, the retention worker, the local runner; test/foundation/partition.test.ts
 * lists who may name this type). The HTTP pipeline never hands it to a handler.
 */
export interface RootDeps extends Deps {
  db: Firestore;
  /** Where Tessera writes and deletes the secrets it mints (webhook signing secrets): the dashboard and the webhook worker. */
  secretWriter: SecretWriter;
}

export interface DepsOverrides {
  clock?: Clock;
  settings?: Partial<Settings>;
  bucketStore?: BucketStore;
  tasks?: TaskQueue;
  liveness?: LivenessRecorder;
  secrets?: SecretStore;
  rails?: RailEdgeOverrides;
  idTokens?: IdTokenVerifier;
  webhookDelivery?: DeliveryOverrides;
  /** How dashboard sign-in tokens are verified (tests: firebase-admin against a local certificate server). */
  operatorTokens?: OperatorTokenVerifier;
  /** Where the dashboard writes and the webhook worker deletes webhook signing secrets (tests: a temporary file). */
  operatorSecrets?: SecretWriter;
}

export function createDeps(overrides: DepsOverrides = {}): RootDeps {
  const db = defaultDb();
  const clock = overrides.clock ?? systemClock;
  const settings = { ...loadSettings(), ...overrides.settings };
  const limiter = new RateLimiter(overrides.bucketStore ?? new FirestoreBucketStore(db), clock, (err, id) =>
    logs.rateLimiterFailedOpen(id.projectId, id.env, id.bucket, err instanceof Error ? err.message : String(err)),
  );
  const tasks = overrides.tasks ?? new InProcessTaskQueue();
  const secretWriter = overrides.operatorSecrets ?? deferredOperatorSecretWriter();
  const deps: RootDeps = { db, secretWriter, clock, settings, keys: new KeyAuthenticator(db, clock), limiter, tasks, liveness: overrides.liveness ?? firestoreLiveness, secrets: overrides.secrets ?? createSecretStore(clock), idTokens: overrides.idTokens ?? new JoseIdTokenVerifier(db), rails: createRailEdges(overrides.rails, settings), webhookDelivery: overrides.webhookDelivery,
    operators: new OperatorAuthenticator(db, { clock, tasks, tokens: overrides.operatorTokens ?? firebaseIdTokenVerifier(), allowLoopbackWebhooks: settings.webhooksAllowLoopback, secrets: secretWriter }) };
  logs.started(describeSettings(settings));
  const standIns = railStandIns(deps.rails);
  if (standIns.length > 0) logs.railStandIns(standIns);
  // Loaded on first task: a deployed function (Cloud Tasks queue) never loads the handlers here.
  if (tasks instanceof InProcessTaskQueue) tasks.attach(async (queue, payload) => (await import('./taskHandlers')).runTask(queue, payload, deps));
  return deps;
}
