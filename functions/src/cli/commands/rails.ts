import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readRailsConfig, writeRailConfig, type AppleRailConfig, type GoogleRailConfig } from '../../rails/config';
import { isSecretRef } from '../../secrets/store';
import { optionalString, requireString, stringList, type Command, type Values } from '../command';
import { OperatorError } from '../operatorError';
import { operatorScope } from './catalog';

/**
 * `tessera rails set apple|google` and `tessera rails show`. The configuration holds public
 * identifiers, Apple's root certificates (public) and secret references; `show` prints
 * references and certificate fingerprints, never a secret value.
 */
const BUNDLE_ID = /^[A-Za-z0-9.-]{1,155}$/;
const PACKAGE_NAME = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/;

/** A root certificate file, DER or PEM, as the base64 DER the verifier takes. */
function readRootCertificate(path: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    throw new OperatorError('invalid_argument', `--root-cert ${path}: cannot read the file.`);
  }
  try {
    return new X509Certificate(bytes).raw.toString('base64');
  } catch {
    throw new OperatorError('invalid_argument', `--root-cert ${path}: not an X.509 certificate (DER or PEM).`);
  }
}

function appAppleIdOf(values: Values): number | null {
  const raw = optionalString(values, 'app-apple-id');
  if (raw === undefined) return null;
  if (!/^[1-9][0-9]{0,15}$/.test(raw)) throw new OperatorError('invalid_argument', '--app-apple-id must be the app’s numeric Apple ID.');
  return Number(raw);
}

function describeCertificate(base64: string): { subject: string; sha256: string; validTo: string } | { invalid: true } {
  try {
    const cert = new X509Certificate(Buffer.from(base64, 'base64'));
    return { subject: cert.subject, sha256: cert.fingerprint256, validTo: new Date(cert.validTo).toISOString() };
  } catch {
    return { invalid: true };
  }
}

export const railCommands: Command[] = [
  {
    name: 'rails set apple',
    summary: '--project ID --env test|live --bundle-id ID [--app-apple-id N] [--root-cert FILE]…   (App Store; production verification needs --app-apple-id; root certs are kept when none are given)',
    options: {
      project: { type: 'string' },
      env: { type: 'string' },
      'bundle-id': { type: 'string' },
      'app-apple-id': { type: 'string' },
      'root-cert': { type: 'string', multiple: true },
    },
    async run(values, { db, clock }) {
      const bundleId = requireString(values, 'bundle-id');
      if (!BUNDLE_ID.test(bundleId)) throw new OperatorError('invalid_argument', '--bundle-id must be a bundle identifier (letters, digits, . and -).');
      const appAppleId = appAppleIdOf(values);
      const files = stringList(values, 'root-cert');
      const scope = await operatorScope(db, values);
      const current = (await readRailsConfig(scope)).apple;
      const rootCertificates = files.length > 0 ? files.map(readRootCertificate) : (current?.rootCertificates ?? []);
      if (rootCertificates.length === 0) throw new OperatorError('invalid_argument', '--root-cert is required: the App Store’s root certificate(s), e.g. AppleRootCA-G3.cer.');
      const section: AppleRailConfig = { bundleId, appAppleId, rootCertificates };
      await writeRailConfig(scope, 'apple', section, clock.now());
      return { projectId: scope.projectId, env: scope.env, apple: showApple(section) };
    },
  },
  {
    name: 'rails set google',
    summary: '--project ID --env test|live --package-name NAME --service-account-ref REF [--push-audience AUD] [--push-service-account EMAIL]   (push audience kept when not given)',
    options: {
      project: { type: 'string' },
      env: { type: 'string' },
      'package-name': { type: 'string' },
      'service-account-ref': { type: 'string' },
      'push-audience': { type: 'string' },
      'push-service-account': { type: 'string' },
    },
    async run(values, { db, clock }) {
      const packageName = requireString(values, 'package-name');
      if (!PACKAGE_NAME.test(packageName)) throw new OperatorError('invalid_argument', '--package-name must be an Android package name (com.example.app).');
      const serviceAccountRef = requireString(values, 'service-account-ref');
      if (serviceAccountRef.trimStart().startsWith('{') || !isSecretRef(serviceAccountRef)) {
        throw new OperatorError('invalid_argument', '--service-account-ref must name a secret (the service-account JSON stays in the secret manager).');
      }
      const scope = await operatorScope(db, values);
      const current = (await readRailsConfig(scope)).google;
      const pushAudience = optionalString(values, 'push-audience') ?? current?.pushAudience;
      if (!pushAudience) throw new OperatorError('invalid_argument', '--push-audience is required: the audience set on the Pub/Sub push subscription’s authentication.');
      const email = optionalString(values, 'push-service-account') ?? current?.pushServiceAccountEmail ?? null;
      if (email !== null && !/^[^@\s]+@[^@\s]+$/.test(email)) throw new OperatorError('invalid_argument', '--push-service-account must be a service-account email.');
      const section: GoogleRailConfig = { packageName, serviceAccountRef, pushAudience, pushServiceAccountEmail: email };
      await writeRailConfig(scope, 'google', section, clock.now());
      return { projectId: scope.projectId, env: scope.env, google: section };
    },
  },
  {
    name: 'rails show',
    summary: '--project ID --env test|live   (references and certificate fingerprints only, never secret values)',
    options: { project: { type: 'string' }, env: { type: 'string' } },
    async run(values, { db }) {
      const scope = await operatorScope(db, values);
      const config = await readRailsConfig(scope);
      return {
        projectId: scope.projectId,
        env: scope.env,
        stripe: config.stripe ? { secretKeyRef: config.stripe.secretKeyRef, webhookSecretRef: config.stripe.webhookSecretRef } : null,
        apple: config.apple ? showApple(config.apple) : null,
        google: config.google
          ? {
              packageName: config.google.packageName,
              serviceAccountRef: config.google.serviceAccountRef,
              pushAudience: config.google.pushAudience ?? null,
              pushServiceAccountEmail: config.google.pushServiceAccountEmail ?? null,
            }
          : null,
        webhooks: {
          stripe: `/v1/webhooks/stripe/${scope.projectId}`,
          apple: `/v1/webhooks/apple/${scope.projectId}`,
          google: `/v1/webhooks/google/${scope.projectId}`,
        },
        updatedAt: config.updatedAt ?? null,
      };
    },
  },
];

function showApple(config: AppleRailConfig) {
  return {
    bundleId: config.bundleId,
    appAppleId: config.appAppleId ?? null,
    rootCertificates: (config.rootCertificates ?? []).map(describeCertificate),
    verifies: config.appAppleId ? ['Production', 'Sandbox'] : ['Sandbox'],
  };
}
