import { X509Certificate } from 'node:crypto';
import type { Transaction } from 'firebase-admin/firestore';
import { appendAudit, newServerEventId } from '../audit/append';
import { operatorChangeEntry, type OperatorActor } from '../audit/operatorActor';
import { DomainError } from '../errors/domain';
import { isSecretName, projectSecretId } from '../secrets/store';
import type { EnvScope } from '../store/scope';
import { readRailsConfig, writeRailConfig, type AppleRailConfig, type ConfiguredRail, type GoogleRailConfig, type RailsConfig } from './config';

/**
 * Operators' rail settings (`tessera rails set|show`, the dashboard's Rails page): the checks
 * and the one view of a configuration. It holds references, public identifiers and Apple's
 * (public) root certificates; the view shows references and certificate fingerprints, never a
 * secret value. Each change is audited (`rails.updated`) in the transaction that writes it.
 */
const BUNDLE_ID = /^[A-Za-z0-9.-]{1,155}$/;
const PACKAGE_NAME = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/;
/** Values that are Stripe credentials themselves, not references to them. */
const STRIPE_SECRET_SHAPE = /^(sk|rk)_(test|live)_|^whsec_/;

const invalid = (message: string) => new DomainError('invalid_argument', message);

/** The settings an operator gives, each named in a refusal as the surface the operator used names it. */
type RailSetting = 'secretKeyRef' | 'webhookSecretRef' | 'bundleId' | 'appAppleId' | 'rootCertificates' | 'packageName' | 'serviceAccountRef' | 'pushAudience' | 'pushServiceAccountEmail';
export type RailSettingNames = Record<RailSetting, string>;

/** The dashboard's names: its request bodies' fields (wire/dashboard.ts). The CLI passes its flags. */
export const RAIL_SETTING_FIELDS: RailSettingNames = {
  secretKeyRef: 'secretKeyRef',
  webhookSecretRef: 'webhookSecretRef',
  bundleId: 'bundleId',
  appAppleId: 'appAppleId',
  rootCertificates: 'rootCertificates',
  packageName: 'packageName',
  serviceAccountRef: 'serviceAccountRef',
  pushAudience: 'pushAudience',
  pushServiceAccountEmail: 'pushServiceAccountEmail',
};

/** Who changes the settings, and what they call each one. */
export interface RailChangeOrigin {
  actor: OperatorActor;
  names: RailSettingNames;
}

function checkStripeRef(name: string, ref: string): string {
  // Never echo the value: it may be the secret itself.
  if (STRIPE_SECRET_SHAPE.test(ref)) {
    throw invalid(`${name} looks like a Stripe secret, not a reference: store the secret in Secret Manager (or .secrets.local.json locally) and pass its name.`);
  }
  checkSecretName(name, ref);
  return ref;
}

/**
 * A reference is a secret's name in this project's namespace (secrets/store.ts): the service
 * reads `tessera-{projectId}-{name}`, so a project can only ever name its own secrets.
 */
function checkSecretName(option: string, ref: string): void {
  if (ref.startsWith('projects/')) {
    throw invalid(`${option} must be a secret name, not a Secret Manager path: references resolve inside this project only (the secret tessera-<project id>-<name>).`);
  }
  if (!isSecretName(ref)) throw invalid(`${option} must be a secret name (letters, digits, _ and -, at most 128).`);
}

/** A root certificate (DER or PEM bytes) as the base64 DER the verifier takes; null when it is none. */
export function rootCertificateBase64(bytes: Buffer): string | null {
  try {
    return new X509Certificate(bytes).raw.toString('base64');
  } catch {
    return null;
  }
}

function audited(scope: EnvScope, rail: ConfiguredRail, actor: OperatorActor, now: number, details: Record<string, unknown>) {
  const eventId = newServerEventId('operator');
  const write = (tx: Transaction) =>
    appendAudit(tx, scope, operatorChangeEntry({
      eventId,
      eventType: 'rails.updated',
      reason: `Operator set the ${rail} rail settings of ${scope.projectId} (${scope.env}).`,
      fromState: null,
      toState: null,
      now,
      actor,
      details: { rail, ...details },
    }));
  return { eventId, write };
}

export async function setStripeRail(scope: EnvScope, input: { secretKeyRef: string; webhookSecretRef: string }, now: number, { actor, names }: RailChangeOrigin) {
  const section = { secretKeyRef: checkStripeRef(names.secretKeyRef, input.secretKeyRef), webhookSecretRef: checkStripeRef(names.webhookSecretRef, input.webhookSecretRef) };
  const audit = audited(scope, 'stripe', actor, now, section);
  const config = await writeRailConfig(scope, 'stripe', section, now, audit.write);
  return { config, auditEventId: audit.eventId };
}

export interface AppleRailInput {
  bundleId: string;
  appAppleId: number | null;
  /** Base64 DER; null keeps the configured ones. */
  rootCertificates: string[] | null;
}

export async function setAppleRail(scope: EnvScope, input: AppleRailInput, now: number, { actor, names }: RailChangeOrigin) {
  if (!BUNDLE_ID.test(input.bundleId)) throw invalid(`${names.bundleId} must be a bundle identifier (letters, digits, . and -).`);
  if (input.appAppleId !== null && !(Number.isSafeInteger(input.appAppleId) && input.appAppleId > 0)) throw invalid(`${names.appAppleId} must be the app’s numeric Apple ID.`);
  const current = (await readRailsConfig(scope)).apple;
  const rootCertificates = input.rootCertificates && input.rootCertificates.length > 0 ? input.rootCertificates : (current?.rootCertificates ?? []);
  if (rootCertificates.length === 0) throw invalid(`${names.rootCertificates} is required: the App Store’s root certificate(s), e.g. AppleRootCA-G3.cer.`);
  const section: AppleRailConfig = { bundleId: input.bundleId, appAppleId: input.appAppleId, rootCertificates };
  const audit = audited(scope, 'apple', actor, now, { bundleId: section.bundleId, appAppleId: section.appAppleId, rootCertificates: rootCertificates.map(describeCertificate) });
  const config = await writeRailConfig(scope, 'apple', section, now, audit.write);
  return { config, auditEventId: audit.eventId };
}

export interface GoogleRailInput {
  packageName: string;
  serviceAccountRef: string;
  /** Kept when absent. */
  pushAudience?: string;
  /** Kept when absent. */
  pushServiceAccountEmail?: string;
}

export async function setGoogleRail(scope: EnvScope, input: GoogleRailInput, now: number, { actor, names }: RailChangeOrigin) {
  if (!PACKAGE_NAME.test(input.packageName)) throw invalid(`${names.packageName} must be an Android package name (com.example.app).`);
  if (input.serviceAccountRef.trimStart().startsWith('{')) {
    throw invalid(`${names.serviceAccountRef} must name a secret (the service-account JSON stays in the secret manager).`);
  }
  checkSecretName(names.serviceAccountRef, input.serviceAccountRef);
  const current = (await readRailsConfig(scope)).google;
  const pushAudience = input.pushAudience ?? current?.pushAudience;
  if (!pushAudience) throw invalid(`${names.pushAudience} is required: the audience set on the Pub/Sub push subscription’s authentication.`);
  const email = input.pushServiceAccountEmail ?? current?.pushServiceAccountEmail ?? null;
  if (email !== null && !/^[^@\s]+@[^@\s]+$/.test(email)) throw invalid(`${names.pushServiceAccountEmail} must be a service-account email.`);
  const section: GoogleRailConfig = { packageName: input.packageName, serviceAccountRef: input.serviceAccountRef, pushAudience, pushServiceAccountEmail: email };
  const audit = audited(scope, 'google', actor, now, { ...section });
  const config = await writeRailConfig(scope, 'google', section, now, audit.write);
  return { config, auditEventId: audit.eventId };
}

export function describeCertificate(base64: string): { subject: string; sha256: string; validTo: string } | { invalid: true } {
  try {
    const cert = new X509Certificate(Buffer.from(base64, 'base64'));
    return { subject: cert.subject, sha256: cert.fingerprint256, validTo: new Date(cert.validTo).toISOString() };
  } catch {
    return { invalid: true };
  }
}

export function describeApple(config: AppleRailConfig) {
  return {
    bundleId: config.bundleId,
    appAppleId: config.appAppleId ?? null,
    rootCertificates: (config.rootCertificates ?? []).map(describeCertificate),
    verifies: config.appAppleId ? ['Production', 'Sandbox'] : ['Sandbox'],
  };
}

/** The secret id a stored reference resolves to; null for one that cannot resolve (set before references were names). */
function secretIdOrNull(projectId: string, ref: string): string | null {
  try {
    return projectSecretId(projectId, ref);
  } catch {
    return null;
  }
}

/** What `rails show` and the dashboard show: references and fingerprints, never a secret value. */
export function describeRails(scope: EnvScope, config: RailsConfig) {
  return {
    projectId: scope.projectId,
    env: scope.env,
    stripe: config.stripe ? { secretKeyRef: config.stripe.secretKeyRef, webhookSecretRef: config.stripe.webhookSecretRef } : null,
    apple: config.apple ? describeApple(config.apple) : null,
    google: config.google
      ? {
          packageName: config.google.packageName,
          serviceAccountRef: config.google.serviceAccountRef,
          pushAudience: config.google.pushAudience ?? null,
          pushServiceAccountEmail: config.google.pushServiceAccountEmail ?? null,
        }
      : null,
    // Where the service reads each reference: the secret ids to create in Secret Manager (or .secrets.local.json).
    secretIds: {
      ...(config.stripe ? { stripeSecretKey: secretIdOrNull(scope.projectId, config.stripe.secretKeyRef), stripeWebhookSecret: secretIdOrNull(scope.projectId, config.stripe.webhookSecretRef) } : {}),
      ...(config.google ? { googleServiceAccount: secretIdOrNull(scope.projectId, config.google.serviceAccountRef) } : {}),
    },
    webhooks: {
      stripe: `/v1/webhooks/stripe/${scope.projectId}`,
      apple: `/v1/webhooks/apple/${scope.projectId}`,
      google: `/v1/webhooks/google/${scope.projectId}`,
    },
    updatedAt: config.updatedAt ?? null,
  };
}
