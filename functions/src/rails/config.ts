import type { Transaction } from 'firebase-admin/firestore';
import type { EnvScope } from '../store/scope';
import { storedRecord } from '../store/converters';

/**
 * Rail configuration of one project and environment, at `settings/rails` under the scope.
 * It holds references and public identifiers only: every credential (Stripe secret key,
 * webhook signing secret, Google service account) is a reference resolved at runtime by the
 * SecretStore, never a value stored here.
 */
export interface StripeRailConfig {
  /** Secret reference of the Stripe secret (or restricted) API key. */
  secretKeyRef: string;
  /** Secret reference of the webhook endpoint's signing secret. */
  webhookSecretRef: string;
}

export interface AppleRailConfig {
  bundleId: string;
  /** The app's Apple ID (required by Apple's verifier in production). */
  appAppleId?: number | null;
  /** Trusted Apple root certificates, base64 DER. */
  rootCertificates?: string[];
}

export interface GoogleRailConfig {
  packageName: string;
  /** Secret reference of the Play Developer API service-account JSON. */
  serviceAccountRef: string;
  /** The audience of the Pub/Sub push subscription's OIDC token (required to accept pushes). */
  pushAudience?: string;
  /** The push subscription's service account; when set, the token's verified email must equal it. */
  pushServiceAccountEmail?: string | null;
}

export interface RailsConfig {
  stripe?: StripeRailConfig;
  apple?: AppleRailConfig;
  google?: GoogleRailConfig;
  /** Unix ms of the last change. */
  updatedAt?: number;
}

export type ConfiguredRail = 'stripe' | 'apple' | 'google';
type SectionOf<R extends ConfiguredRail> = NonNullable<RailsConfig[R]>;

export const RAILS_SETTINGS_DOC = 'rails';

export const railsConfigRef = (scope: EnvScope) => scope.doc('settings', RAILS_SETTINGS_DOC).withConverter(railsConfigConverter);

/** The rails configuration, or `{}` when none is set. Inside a transaction pass `tx`. */
export async function readRailsConfig(scope: EnvScope, tx?: Transaction): Promise<RailsConfig> {
  const ref = railsConfigRef(scope);
  let snapshot;
  if (tx) {
    snapshot = await tx.get(ref);
  } else {
    snapshot = await scope.get(ref);
  }
  return snapshot.data() ?? {};
}

/** Replaces one rail's section, leaving the other rails untouched. */
export async function writeRailConfig<R extends ConfiguredRail>(scope: EnvScope, rail: R, section: SectionOf<R>, now: number, alongside?: (tx: Transaction) => void): Promise<RailsConfig> {
  return scope.runTransaction(async (tx) => {
    const current = await readRailsConfig(scope, tx);
    const next: RailsConfig = { ...current, [rail]: section, updatedAt: now };
    tx.set(railsConfigRef(scope), next);
    alongside?.(tx); // e.g. the change's audit entry, in the same transaction
    return next;
  });
}

export const railsConfigConverter = storedRecord<RailsConfig>();
