/**
 * Guarantees of `tessera rails set apple|google` and `tessera rails show`: the configuration the
 * webhooks and purchase sync verify with is written per project and environment; root
 * certificates are read from DER or PEM files; credentials are only ever references (a pasted
 * service-account JSON is refused); `show` prints references and fingerprints, never a secret.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command, CommandContext } from '../../functions/src/cli/command';
import { OperatorError } from '../../functions/src/cli/operatorError';
import { COMMANDS } from '../../functions/src/cli/registry';
import { readRailsConfig, writeRailConfig } from '../../functions/src/rails/config';
import { EnvScope } from '../../functions/src/store/scope';
import { createTestService, seedProject, type SeededProject, type TestService } from '../support/harness';
import { AppleChain } from './support/appleChain';

let service: TestService;
let project: SeededProject;
let ctx: CommandContext;
const chain = new AppleChain();
const dir = mkdtempSync(join(tmpdir(), 'tessera-rails-cli-'));
const derFile = join(dir, 'root.cer');
const pemFile = join(dir, 'root.pem');

beforeAll(async () => {
  service = createTestService();
  project = await seedProject(service);
  ctx = { db: service.deps.db, clock: service.clock, stdin: async () => '' };
  const der = Buffer.from(chain.rootBase64, 'base64');
  writeFileSync(derFile, der);
  writeFileSync(pemFile, new X509Certificate(der).toString());
});

function command(name: string): Command {
  const found = COMMANDS.find((c) => c.name === name);
  if (!found) throw new Error(`no command ${name}`);
  return found;
}

const run = (name: string, values: Record<string, string | string[] | boolean>) => command(name).run(values, ctx) as Promise<any>;

async function fails(name: string, values: Record<string, string | string[] | boolean>): Promise<OperatorError> {
  try {
    await run(name, values);
  } catch (err) {
    if (err instanceof OperatorError) return err;
    throw err;
  }
  throw new Error('expected an OperatorError');
}

it('sets the App Store configuration from DER and PEM root files', async () => {
  const out = await run('rails set apple', { project: project.projectId, env: 'live', 'bundle-id': 'com.example.app', 'app-apple-id': '1234567890', 'root-cert': [derFile, pemFile] });
  expect(out.apple).toMatchObject({ bundleId: 'com.example.app', appAppleId: 1234567890, verifies: ['Production', 'Sandbox'] });
  expect(out.apple.rootCertificates).toHaveLength(2);
  expect(out.apple.rootCertificates[0].sha256).toBe(new X509Certificate(Buffer.from(chain.rootBase64, 'base64')).fingerprint256);
  const stored = await readRailsConfig(new EnvScope(service.deps.db, project.projectId, 'live'));
  expect(stored.apple!.rootCertificates).toEqual([chain.rootBase64, chain.rootBase64]);
  // The other environment is untouched.
  expect((await readRailsConfig(new EnvScope(service.deps.db, project.projectId, 'test'))).apple).toBeUndefined();
  // Changing the bundle id keeps the stored roots.
  const again = await run('rails set apple', { project: project.projectId, env: 'live', 'bundle-id': 'com.example.other' });
  expect(again.apple.rootCertificates).toHaveLength(2);
  expect(again.apple.verifies).toEqual(['Sandbox']);
});

it('refuses App Store settings it could never verify with', async () => {
  expect((await fails('rails set apple', { project: project.projectId, env: 'test', 'bundle-id': 'com.example.app' })).code).toBe('invalid_argument');
  const notCert = join(dir, 'not-a-cert.pem');
  writeFileSync(notCert, 'hello');
  expect((await fails('rails set apple', { project: project.projectId, env: 'test', 'bundle-id': 'com.example.app', 'root-cert': notCert })).code).toBe('invalid_argument');
  const badBundle = await fails('rails set apple', { project: project.projectId, env: 'test', 'bundle-id': 'bad id!', 'root-cert': derFile });
  expect(badBundle.code).toBe('invalid_argument');
  expect(badBundle.message).toMatch(/^--bundle-id must be a bundle identifier/);
  expect((await fails('rails set apple', { project: project.projectId, env: 'test', 'bundle-id': 'com.example.app', 'app-apple-id': 'abc', 'root-cert': derFile })).code).toBe('invalid_argument');
  expect((await fails('rails set apple', { project: 'proj_doesnotexist', env: 'test', 'bundle-id': 'com.example.app', 'root-cert': derFile })).code).toBe('not_found');
});

it('sets Google Play with a service-account reference and the push audience, refusing a pasted credential', async () => {
  const base = { project: project.projectId, env: 'live', 'package-name': 'com.example.android' };
  expect((await fails('rails set google', { ...base, 'service-account-ref': '{"type":"service_account"}', 'push-audience': 'https://x' })).code).toBe('invalid_argument');
  expect((await fails('rails set google', { ...base, 'service-account-ref': 'projects/gcp/secrets/tessera-proj_other-play', 'push-audience': 'https://x' })).code).toBe('invalid_argument');
  const noAudience = await fails('rails set google', { ...base, 'service-account-ref': 'play-service-account' });
  expect(noAudience.code).toBe('invalid_argument');
  expect(noAudience.message).toMatch(/^--push-audience is required/);
  expect((await fails('rails set google', { ...base, 'package-name': 'not a package', 'service-account-ref': 'play-service-account', 'push-audience': 'https://x' })).code).toBe('invalid_argument');
  const out = await run('rails set google', { ...base, 'service-account-ref': 'play-service-account', 'push-audience': 'https://tessera.example.com/push', 'push-service-account': 'push@example.iam.gserviceaccount.com' });
  expect(out.google).toEqual({ packageName: 'com.example.android', serviceAccountRef: 'play-service-account', pushAudience: 'https://tessera.example.com/push', pushServiceAccountEmail: 'push@example.iam.gserviceaccount.com' });
  // Re-setting without the audience keeps it.
  const again = await run('rails set google', { ...base, 'service-account-ref': 'play-reader' });
  expect(again.google.pushAudience).toBe('https://tessera.example.com/push');
});

it('shows references, fingerprints and the webhook paths, never a secret value', async () => {
  const scope = new EnvScope(service.deps.db, project.projectId, 'live');
  await writeRailConfig(scope, 'stripe', { secretKeyRef: 'stripe-live-secret-key', webhookSecretRef: 'stripe-live-webhook-secret' }, service.clock.now());
  const out = await run('rails show', { project: project.projectId, env: 'live' });
  expect(out.stripe).toEqual({ secretKeyRef: 'stripe-live-secret-key', webhookSecretRef: 'stripe-live-webhook-secret' });
  expect(out.apple.rootCertificates[0]).toEqual({ subject: expect.stringContaining('Test Apple Root CA'), sha256: expect.any(String), validTo: expect.any(String) });
  expect(out.google.serviceAccountRef).toBe('play-reader');
  // Each reference is read from the project's own namespace.
  expect(out.secretIds).toEqual({
    stripeSecretKey: `tessera-${project.projectId}-stripe-live-secret-key`,
    stripeWebhookSecret: `tessera-${project.projectId}-stripe-live-webhook-secret`,
    googleServiceAccount: `tessera-${project.projectId}-play-reader`,
  });
  expect(out.webhooks).toEqual({
    stripe: `/v1/webhooks/stripe/${project.projectId}`,
    apple: `/v1/webhooks/apple/${project.projectId}`,
    google: `/v1/webhooks/google/${project.projectId}`,
  });
  // Root certificates appear as fingerprints, not as stored blobs.
  expect(JSON.stringify(out)).not.toContain(chain.rootBase64);
  const empty = await run('rails show', { project: project.projectId, env: 'test' });
  expect(empty).toMatchObject({ stripe: null, apple: null, google: null });
});
