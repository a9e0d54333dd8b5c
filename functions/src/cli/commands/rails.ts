import { readFileSync } from 'node:fs';
import { readRailsConfig } from '../../rails/config';
import { describeApple, describeRails, rootCertificateBase64, setAppleRail, setGoogleRail } from '../../rails/operatorSettings';
import { CLI_RAIL_CHANGE } from './railFlags';
import { optionalString, requireString, stringList, type Command, type Values } from '../command';
import { OperatorError } from '../operatorError';
import { operatorScope } from './catalog';

/**
 * `tessera rails set apple|google` and `tessera rails show`. The checks, the write and its
 * audit entry, and the view are rails/operatorSettings.ts (the dashboard calls the same); this
 * file reads the command line and the certificate files.
 */

/** A root certificate file, DER or PEM, as the base64 DER the verifier takes. */
function readRootCertificate(path: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    throw new OperatorError('invalid_argument', `--root-cert ${path}: cannot read the file.`);
  }
  const base64 = rootCertificateBase64(bytes);
  if (base64 === null) throw new OperatorError('invalid_argument', `--root-cert ${path}: not an X.509 certificate (DER or PEM).`);
  return base64;
}

function appAppleIdOf(values: Values): number | null {
  const raw = optionalString(values, 'app-apple-id');
  if (raw === undefined) return null;
  if (!/^[1-9][0-9]{0,15}$/.test(raw)) throw new OperatorError('invalid_argument', '--app-apple-id must be the app’s numeric Apple ID.');
  return Number(raw);
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
      const appAppleId = appAppleIdOf(values);
      const files = stringList(values, 'root-cert');
      const rootCertificates = files.length > 0 ? files.map(readRootCertificate) : null;
      const scope = await operatorScope(db, values);
      const { config } = await setAppleRail(scope, { bundleId, appAppleId, rootCertificates }, clock.now(), CLI_RAIL_CHANGE);
      return { projectId: scope.projectId, env: scope.env, apple: describeApple(config.apple!) };
    },
  },
  {
    name: 'rails set google',
    summary: '--project ID --env test|live --package-name NAME --service-account-ref REF [--push-audience AUD] [--push-service-account EMAIL]   (REF is read from the secret tessera-<project id>-REF; push audience kept when not given)',
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
      const serviceAccountRef = requireString(values, 'service-account-ref');
      const scope = await operatorScope(db, values);
      const { config } = await setGoogleRail(
        scope,
        { packageName, serviceAccountRef, pushAudience: optionalString(values, 'push-audience'), pushServiceAccountEmail: optionalString(values, 'push-service-account') },
        clock.now(),
        CLI_RAIL_CHANGE,
      );
      return { projectId: scope.projectId, env: scope.env, google: config.google };
    },
  },
  {
    name: 'rails show',
    summary: '--project ID --env test|live   (references and certificate fingerprints only, never secret values)',
    options: { project: { type: 'string' }, env: { type: 'string' } },
    async run(values, { db }) {
      const scope = await operatorScope(db, values);
      return describeRails(scope, await readRailsConfig(scope));
    },
  },
];
