/**
 * Guarantees of the webhook endpoint registry (`tessera webhooks create|list|disable|enable|
 * rotate-secret`): an endpoint lives in its own project and environment and is found there by
 * its id alone; its signing secret (`whsec_…`) is printed once and kept only in the secret store
 * (Firestore, listings and audit entries never hold a value); rotation keeps the previous secret
 * signing for the grace only; at most 10 enabled endpoints per partition, concurrent creations
 * included, and a refusal leaves no lock behind; update changes URL and types; delete removes the
 * endpoint and every generation of its secret; refused destinations and event types leave
 * nothing behind; every change is audited.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OperatorError } from '../../functions/src/cli/operatorError';
import { HOUR } from '../../functions/src/clock';
import type { AuditEntry } from '../../functions/src/audit/model';
import { LocalSecretStore, SecretUnavailableError } from '../../functions/src/secrets/store';
import { LocalSecretWriter } from '../../functions/src/secrets/writer';
import type { Env } from '../../functions/src/store/env';
import { EnvScope } from '../../functions/src/store/scope';
import type { WebhookEndpointRecord } from '../../functions/src/webhooks/model';
import { retireExpiredSigningSecrets } from '../../functions/src/webhooks/secretRetirement';
import { activeSecretRefs, signingSecretRef } from '../../functions/src/webhooks/signingSecret';
import { createTestService, seedProject, type SeededProject, type TestService } from '../support/harness';
import { operatorCommands } from '../support/operatorCommands';

let service: TestService;
let project: SeededProject;
const secretsFile = join(mkdtempSync(join(tmpdir(), 'tessera-webhooks-')), 'secrets.json');
const secretStore = new LocalSecretStore({ file: secretsFile, environment: {} });
const PUBLIC_URL = 'https://93.184.215.14/tessera/hooks';

const { tessera, tesseraFails } = operatorCommands(
  () => service,
  () => ({ secrets: new LocalSecretWriter(secretsFile) }),
);

const storedSecrets = (): Record<string, string> => {
  try {
    return JSON.parse(readFileSync(secretsFile, 'utf8'));
  } catch {
    return {};
  }
};
const scopeOf = (projectId: string, env: Env) => new EnvScope(service.deps.db, projectId, env);
async function record(projectId: string, env: Env, endpointId: string): Promise<WebhookEndpointRecord> {
  const snapshot = await scopeOf(projectId, env).doc('webhookEndpoints', endpointId).get();
  expect(snapshot.exists).toBe(true);
  return snapshot.data() as WebhookEndpointRecord;
}
async function audit(projectId: string, env: Env, eventId: string): Promise<AuditEntry> {
  const snapshot = await scopeOf(projectId, env).doc('audit', eventId).get();
  expect(snapshot.exists).toBe(true);
  return snapshot.data() as AuditEntry;
}
/** Every document under the partition's webhook collections, as JSON text. */
async function partitionText(projectId: string, env: Env): Promise<string> {
  const scope = scopeOf(projectId, env);
  const docs = [...(await scope.collection('webhookEndpoints').get()).docs, ...(await scope.collection('webhookMeta').get()).docs, ...(await scope.collection('audit').get()).docs];
  return JSON.stringify(docs.map((d) => d.data()));
}

beforeAll(async () => {
  // The worker deletes signing secrets where the CLI writes them.
  service = createTestService({ operatorSecrets: new LocalSecretWriter(secretsFile) });
  project = await seedProject(service);
});
beforeEach(() => service.clock.advance(1000));

describe('webhooks create', () => {
  it('prints the endpoint and its secret once; the secret lives only in the secret store', async () => {
    const out = await tessera('webhooks create', { project: project.projectId, env: 'test', url: PUBLIC_URL, event: ['entitlement.granted', 'customer.merged', 'entitlement.granted'] });
    expect(Object.keys(out).slice(0, 2)).toEqual(['endpointId', 'secret']);
    expect(out.endpointId).toMatch(/^whep_[A-Za-z0-9]{24}$/);
    expect(out.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(out.secret.slice('whsec_'.length), 'base64url')).toHaveLength(32);
    expect(out).toMatchObject({ projectId: project.projectId, env: 'test', url: PUBLIC_URL, eventTypes: ['entitlement.granted', 'customer.merged'], allEventTypes: false, enabled: true, secretGeneration: 1, previousSecret: null });

    const stored = await record(project.projectId, 'test', out.endpointId);
    expect(stored.secret.generation).toBe(1);
    await expect(secretStore.read(project.projectId, stored.secret.ref)).resolves.toBe(out.secret);
    // Its id in the secret store carries its project.
    expect(Object.keys(storedSecrets())).toContain(`tessera-${project.projectId}-webhook-${out.endpointId}-1`);
    const text = await partitionText(project.projectId, 'test');
    expect(text).toContain(out.endpointId);
    expect(text).not.toContain(out.secret);
    expect(text).not.toContain('whsec_');

    const entry = await audit(project.projectId, 'test', out.auditEventId);
    expect(entry).toMatchObject({ eventType: 'webhook_endpoint.created', rail: 'manual', decision: 'applied', projectId: project.projectId, env: 'test', toState: 'enabled' });
    expect(entry.eventId).toMatch(/^srv_webhook_/);
    expect(entry.details).toMatchObject({ endpointId: out.endpointId, url: PUBLIC_URL, surface: 'cli' });
  });

  it('subscribes to every type without --event', async () => {
    const out = await tessera('webhooks create', { project: project.projectId, env: 'live', url: PUBLIC_URL });
    expect(out).toMatchObject({ env: 'live', eventTypes: [], allEventTypes: true });
  });

  it('refuses unknown event types and webhook.test, leaving nothing behind', async () => {
    const fresh = await seedProject(service);
    const before = Object.keys(storedSecrets()).length;
    expect((await tesseraFails('webhooks create', { project: fresh.projectId, env: 'test', url: PUBLIC_URL, event: ['entitlement.granted', 'entitlement.teleported'] })).code).toBe('invalid_argument');
    expect((await tesseraFails('webhooks create', { project: fresh.projectId, env: 'test', url: PUBLIC_URL, event: ['webhook.test'] })).code).toBe('invalid_argument');
    expect((await tessera('webhooks list', { project: fresh.projectId, env: 'test' })).endpoints).toEqual([]);
    expect(Object.keys(storedSecrets())).toHaveLength(before);
  });

  it('refuses private, metadata and plain-http destinations (deployed policy), leaving nothing behind', async () => {
    const fresh = await seedProject(service);
    const before = Object.keys(storedSecrets()).length;
    for (const url of ['https://10.0.0.1/hook', 'https://169.254.169.254/computeMetadata/v1/', 'https://[::ffff:127.0.0.1]/', 'https://metadata.google.internal/', 'http://93.184.215.14/hook', 'http://127.0.0.1:9999/hook', 'https://u:p@93.184.215.14/']) {
      expect((await tesseraFails('webhooks create', { project: fresh.projectId, env: 'test', url })).code).toBe('invalid_argument');
    }
    expect((await tessera('webhooks list', { project: fresh.projectId, env: 'test' })).endpoints).toEqual([]);
    expect(Object.keys(storedSecrets())).toHaveLength(before);
  });

  it('admits http to loopback only with the local setting', async () => {
    const fresh = await seedProject(service);
    const previous = process.env.TESSERA_WEBHOOKS_ALLOW_LOOPBACK;
    process.env.TESSERA_WEBHOOKS_ALLOW_LOOPBACK = 'on';
    try {
      const out = await tessera('webhooks create', { project: fresh.projectId, env: 'test', url: 'http://127.0.0.1:4242/hook' });
      expect(out).toMatchObject({ url: 'http://127.0.0.1:4242/hook', enabled: true });
      expect((await tesseraFails('webhooks create', { project: fresh.projectId, env: 'test', url: 'http://93.184.215.14/hook' })).code).toBe('invalid_argument');
      expect((await tesseraFails('webhooks create', { project: fresh.projectId, env: 'test', url: 'https://192.168.1.1/hook' })).code).toBe('invalid_argument');
    } finally {
      if (previous === undefined) delete process.env.TESSERA_WEBHOOKS_ALLOW_LOOPBACK;
      else process.env.TESSERA_WEBHOOKS_ALLOW_LOOPBACK = previous;
    }
  });

  it('refuses an unknown project', async () => {
    expect((await tesseraFails('webhooks create', { project: 'proj_doesNotExist', env: 'test', url: PUBLIC_URL })).code).toBe('not_found');
  });
});

describe('the 10-endpoint limit', () => {
  it('admits 10 per project and environment, concurrent creations included', async () => {
    const fresh = await seedProject(service);
    const create = (env: Env) => tessera('webhooks create', { project: fresh.projectId, env, url: PUBLIC_URL });
    for (let i = 0; i < 8; i += 1) await create('test');
    const before = Object.keys(storedSecrets()).length;
    const results = await Promise.allSettled([create('test'), create('test'), create('test'), create('test')]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    const refusals = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason);
    expect(refusals.map((e) => (e as OperatorError).code)).toEqual(['conflict', 'conflict']);
    expect((await tessera('webhooks list', { project: fresh.projectId, env: 'test' })).endpoints).toHaveLength(10);
    expect(Object.keys(storedSecrets())).toHaveLength(before + 2); // the refused creations' secrets were removed
    expect((await tesseraFails('webhooks create', { project: fresh.projectId, env: 'test', url: PUBLIC_URL })).code).toBe('conflict');
    // The other environment has its own 10.
    await expect(create('live')).resolves.toMatchObject({ env: 'live' });
  });

  it('counts enabled endpoints only: a disabled or deleted one frees its place, and enabling an 11th is refused', async () => {
    const fresh = await seedProject(service);
    const create = () => tessera('webhooks create', { project: fresh.projectId, env: 'test', url: PUBLIC_URL });
    const created = [];
    for (let i = 0; i < 10; i += 1) created.push(await create());
    expect((await tesseraFails('webhooks create', { project: fresh.projectId, env: 'test', url: PUBLIC_URL })).code).toBe('conflict');
    await tessera('webhooks disable', { endpoint: created[0].endpointId });
    const eleventh = await create(); // 10 enabled again, 11 in all
    const refused = await tesseraFails('webhooks enable', { endpoint: created[0].endpointId });
    expect(refused.code).toBe('conflict');
    expect(refused.message).toMatch(/10 enabled test webhook endpoints/);
    await tessera('webhooks delete', { endpoint: eleventh.endpointId });
    await expect(tessera('webhooks enable', { endpoint: created[0].endpointId })).resolves.toMatchObject({ endpoint: { enabled: true } });
    expect((await tessera('webhooks list', { project: fresh.projectId, env: 'test' })).endpoints).toHaveLength(10);
  });

  it('lets the other environment create at once after a refusal (the refusal commits, no lock is left behind)', async () => {
    const fresh = await seedProject(service);
    for (let i = 0; i < 10; i += 1) await tessera('webhooks create', { project: fresh.projectId, env: 'test', url: PUBLIC_URL });
    const { Transaction } = await import('@google-cloud/firestore');
    const rollback = jest.spyOn(Transaction.prototype as unknown as { rollback(): Promise<void> }, 'rollback'); // internal: not in the typings
    try {
      expect((await tesseraFails('webhooks create', { project: fresh.projectId, env: 'test', url: PUBLIC_URL })).code).toBe('conflict');
      // A refusal never leaves its transaction to a rollback that a CLI process exits before sending.
      expect(rollback).not.toHaveBeenCalled();
    } finally {
      rollback.mockRestore();
    }
    await expect(tessera('webhooks create', { project: fresh.projectId, env: 'live', url: PUBLIC_URL })).resolves.toMatchObject({ env: 'live' });
  });
});

describe('webhooks update and delete', () => {
  it('changes the URL and the event types, audited with both, keeping the secret', async () => {
    const fresh = await seedProject(service);
    const created = await tessera('webhooks create', { project: fresh.projectId, env: 'test', url: PUBLIC_URL, event: ['entitlement.granted'] });
    const updated = await tessera('webhooks update', { endpoint: created.endpointId, url: 'https://93.184.215.14/v2/hooks', event: ['customer.merged', 'customer.erased'] });
    expect(updated.endpoint).toMatchObject({ url: 'https://93.184.215.14/v2/hooks', eventTypes: ['customer.merged', 'customer.erased'], secretGeneration: 1, enabled: true });
    expect(await audit(fresh.projectId, 'test', updated.auditEventId)).toMatchObject({
      eventType: 'webhook_endpoint.updated',
      details: expect.objectContaining({ previousUrl: PUBLIC_URL, previousEventTypes: ['entitlement.granted'], url: 'https://93.184.215.14/v2/hooks' }),
    });
    const everything = await tessera('webhooks update', { endpoint: created.endpointId, 'all-events': true });
    expect(everything.endpoint).toMatchObject({ eventTypes: [], allEventTypes: true, url: 'https://93.184.215.14/v2/hooks' });
    expect((await record(fresh.projectId, 'test', created.endpointId)).secret.ref).toBe(activeSecretRefs(await record(fresh.projectId, 'test', created.endpointId), 0)[0]);
  });

  it('refuses a private destination, an unknown type, an empty change and an unknown endpoint, changing nothing', async () => {
    const fresh = await seedProject(service);
    const created = await tessera('webhooks create', { project: fresh.projectId, env: 'test', url: PUBLIC_URL });
    const before = await partitionText(fresh.projectId, 'test');
    const privateUrl = await tesseraFails('webhooks update', { endpoint: created.endpointId, url: 'https://10.0.0.8/hook' });
    expect(privateUrl.code).toBe('invalid_argument');
    expect(privateUrl.message).not.toContain('10.0.0.8');
    expect((await tesseraFails('webhooks update', { endpoint: created.endpointId, event: ['entitlement.nope'] })).code).toBe('invalid_argument');
    expect((await tesseraFails('webhooks update', { endpoint: created.endpointId })).code).toBe('invalid_argument');
    expect((await tesseraFails('webhooks update', { endpoint: 'whep_AAAAAAAAAAAAAAAAAAAAAAAA', url: PUBLIC_URL })).code).toBe('not_found');
    expect(await partitionText(fresh.projectId, 'test')).toBe(before);
  });

  it('deletes the endpoint and every generation of its secret, audited; a second delete is not_found', async () => {
    const fresh = await seedProject(service);
    const created = await tessera('webhooks create', { project: fresh.projectId, env: 'test', url: PUBLIC_URL });
    await tessera('webhooks rotate-secret', { endpoint: created.endpointId, grace: '0' });
    const refs = Object.keys(storedSecrets()).filter((ref) => ref.includes(created.endpointId));
    expect(refs).toHaveLength(2); // generation 1 is past its grace, but the worker has not retired it yet
    const deleted = await tessera('webhooks delete', { endpoint: created.endpointId });
    expect(deleted).toMatchObject({ endpointId: created.endpointId, deleted: true, secretsRemoved: 2, secretsNotRemoved: [] });
    expect(Object.keys(storedSecrets()).filter((ref) => ref.includes(created.endpointId))).toEqual([]);
    expect((await scopeOf(fresh.projectId, 'test').doc('webhookEndpoints', created.endpointId).get()).exists).toBe(false);
    expect(await audit(fresh.projectId, 'test', deleted.auditEventId)).toMatchObject({ eventType: 'webhook_endpoint.deleted', fromState: 'enabled', details: expect.objectContaining({ url: PUBLIC_URL }) });
    expect((await tesseraFails('webhooks delete', { endpoint: created.endpointId })).code).toBe('not_found');
  });
});

describe('webhooks list, disable, enable', () => {
  it('lists without secret values or references, and disables and enables by endpoint id alone', async () => {
    const fresh = await seedProject(service);
    const created = await tessera('webhooks create', { project: fresh.projectId, env: 'test', url: PUBLIC_URL });
    const listed = await tessera('webhooks list', { project: fresh.projectId, env: 'test' });
    expect(listed.endpoints).toEqual([expect.objectContaining({ endpointId: created.endpointId, enabled: true, disabled: null, secretGeneration: 1 })]);
    const text = JSON.stringify(listed);
    expect(text).not.toContain(created.secret);
    expect(text).not.toContain('whsec_');
    expect(text).not.toContain(signingSecretRef(created.endpointId, 1));

    const disabled = await tessera('webhooks disable', { endpoint: created.endpointId, note: 'receiver migrating' });
    expect(disabled.endpoint).toMatchObject({ enabled: false, disabled: { reason: 'operator', note: 'receiver migrating', at: service.clock.now() } });
    expect(await audit(fresh.projectId, 'test', disabled.auditEventId)).toMatchObject({ eventType: 'webhook_endpoint.disabled', fromState: 'enabled', toState: 'disabled' });
    expect((await record(fresh.projectId, 'test', created.endpointId)).disabled).toMatchObject({ reason: 'operator' });
    expect((await tesseraFails('webhooks disable', { endpoint: created.endpointId })).code).toBe('conflict');

    const enabled = await tessera('webhooks enable', { endpoint: created.endpointId });
    expect(enabled.endpoint).toMatchObject({ enabled: true, disabled: null });
    expect(await audit(fresh.projectId, 'test', enabled.auditEventId)).toMatchObject({ eventType: 'webhook_endpoint.enabled', fromState: 'disabled', toState: 'enabled' });
    expect((await tesseraFails('webhooks enable', { endpoint: created.endpointId })).code).toBe('conflict');
  });

  it('answers not_found for an unknown id and invalid_argument for a malformed one', async () => {
    expect((await tesseraFails('webhooks disable', { endpoint: 'whep_AAAAAAAAAAAAAAAAAAAAAAAA' })).code).toBe('not_found');
    expect((await tesseraFails('webhooks enable', { endpoint: 'whep_AAAAAAAAAAAAAAAAAAAAAAAA' })).code).toBe('not_found');
    expect((await tesseraFails('webhooks rotate-secret', { endpoint: 'projects/x' })).code).toBe('invalid_argument');
  });
});

describe('webhooks rotate-secret', () => {
  it('signs only with secrets named for the record’s own endpoint and generation (checked on read)', () => {
    const own = { endpointId: 'whep_A', secret: { ref: signingSecretRef('whep_A', 2), generation: 2, createdAt: 0 }, previousSecret: { ref: signingSecretRef('whep_A', 1), generation: 1, expiresAt: 10 } };
    expect(activeSecretRefs(own, 5)).toEqual(['webhook-whep_A-2', 'webhook-whep_A-1']);
    expect(() => activeSecretRefs({ ...own, secret: { ...own.secret, ref: signingSecretRef('whep_B', 2) } }, 5)).toThrow(SecretUnavailableError);
    expect(() => activeSecretRefs({ ...own, secret: { ...own.secret, ref: 'stripe-live-webhook-secret' } }, 5)).toThrow(SecretUnavailableError);
    expect(() => activeSecretRefs({ ...own, previousSecret: { ...own.previousSecret, ref: signingSecretRef('whep_A', 2) } }, 5)).toThrow(SecretUnavailableError);
  });

  it('prints a new secret once and keeps the previous one signing for the grace only', async () => {
    const fresh = await seedProject(service);
    const created = await tessera('webhooks create', { project: fresh.projectId, env: 'test', url: PUBLIC_URL });
    const firstRef = (await record(fresh.projectId, 'test', created.endpointId)).secret.ref;
    const rotatedAt = service.clock.now();
    const rotated = await tessera('webhooks rotate-secret', { endpoint: created.endpointId });
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated.secret).not.toBe(created.secret);
    expect(rotated.previousSecretExpiresAt).toBe(rotatedAt + 24 * HOUR);
    expect(rotated.endpoint).toMatchObject({ secretGeneration: 2, previousSecret: { generation: 1, expiresAt: rotatedAt + 24 * HOUR } });

    const stored = await record(fresh.projectId, 'test', created.endpointId);
    expect(stored.previousSecret).toEqual({ ref: firstRef, generation: 1, expiresAt: rotatedAt + 24 * HOUR });
    await expect(secretStore.read(fresh.projectId, stored.secret.ref)).resolves.toBe(rotated.secret);
    await expect(secretStore.read(fresh.projectId, firstRef)).resolves.toBe(created.secret);
    // During the grace both sign, the previous one last (read by verifiers that take the last v1).
    expect(activeSecretRefs(stored, rotatedAt + 24 * HOUR - 1)).toEqual([stored.secret.ref, firstRef]);
    expect(activeSecretRefs(stored, rotatedAt + 24 * HOUR)).toEqual([stored.secret.ref]);

    const text = await partitionText(fresh.projectId, 'test');
    expect(text).not.toContain(rotated.secret);
    expect(text).not.toContain(created.secret);
    const entry = await audit(fresh.projectId, 'test', rotated.auditEventId);
    expect(entry).toMatchObject({ eventType: 'webhook_endpoint.secret_rotated', details: { graceMs: 24 * HOUR, secretGeneration: 2 } });
    expect(JSON.stringify(entry)).not.toContain('whsec_');

    // The worker runs before the grace ends: nothing is deleted.
    service.clock.advance(24 * HOUR - 1);
    await retireExpiredSigningSecrets(service.deps);
    await expect(secretStore.read(fresh.projectId, firstRef)).resolves.toBe(created.secret);

    service.clock.advance(1);
    const [listed] = (await tessera('webhooks list', { project: fresh.projectId, env: 'test' })).endpoints;
    expect(listed).toMatchObject({ secretGeneration: 2, previousSecret: null });
    // The grace has ended: the worker deletes the previous secret from the store, once.
    await retireExpiredSigningSecrets(service.deps);
    await expect(secretStore.read(fresh.projectId, firstRef)).rejects.toThrow(SecretUnavailableError);
    await expect(secretStore.read(fresh.projectId, stored.secret.ref)).resolves.toBe(rotated.secret);
    expect((await record(fresh.projectId, 'test', created.endpointId)).previousSecretRetiresAt).toBeNull();
    expect(Object.keys(storedSecrets()).filter((id) => id.includes(created.endpointId))).toEqual([`tessera-${fresh.projectId}-${stored.secret.ref}`]);
  });

  it('honours --grace, 0 ending the previous secret at once, and refuses more than 7 days', async () => {
    const fresh = await seedProject(service);
    const created = await tessera('webhooks create', { project: fresh.projectId, env: 'live', url: PUBLIC_URL });
    const short = await tessera('webhooks rotate-secret', { endpoint: created.endpointId, grace: '1h' });
    expect(short.previousSecretExpiresAt).toBe(service.clock.now() + HOUR);
    const now = await tessera('webhooks rotate-secret', { endpoint: created.endpointId, grace: '0' });
    expect(now.endpoint).toMatchObject({ secretGeneration: 3, previousSecret: null });
    const stored = await record(fresh.projectId, 'live', created.endpointId);
    expect(activeSecretRefs(stored, service.clock.now())).toEqual([stored.secret.ref]);
    // Generation 1, displaced while its grace ran, is deleted by the rotation itself; generation
    // 2 (no grace) by the worker's next run. Only the signing secret is left.
    const ours = () => Object.keys(storedSecrets()).filter((id) => id.includes(created.endpointId));
    expect(ours()).toEqual([`tessera-${fresh.projectId}-webhook-${created.endpointId}-2`, `tessera-${fresh.projectId}-webhook-${created.endpointId}-3`]);
    await retireExpiredSigningSecrets(service.deps);
    expect(ours()).toEqual([`tessera-${fresh.projectId}-webhook-${created.endpointId}-3`]);
    expect((await tesseraFails('webhooks rotate-secret', { endpoint: created.endpointId, grace: '8d' })).code).toBe('invalid_argument');
    expect((await tesseraFails('webhooks rotate-secret', { endpoint: created.endpointId, grace: 'soon' })).code).toBe('invalid_argument');
  });
});

describe('partition isolation', () => {
  it('keeps each endpoint in its own project and environment, and acts on it there by id', async () => {
    const a = await seedProject(service);
    const b = await seedProject(service);
    const aTest = await tessera('webhooks create', { project: a.projectId, env: 'test', url: PUBLIC_URL });
    const aLive = await tessera('webhooks create', { project: a.projectId, env: 'live', url: PUBLIC_URL });
    const bTest = await tessera('webhooks create', { project: b.projectId, env: 'test', url: PUBLIC_URL });
    const ids = async (projectId: string, env: Env) => (await tessera('webhooks list', { project: projectId, env })).endpoints.map((e: { endpointId: string }) => e.endpointId);
    expect(await ids(a.projectId, 'test')).toEqual([aTest.endpointId]);
    expect(await ids(a.projectId, 'live')).toEqual([aLive.endpointId]);
    expect(await ids(b.projectId, 'test')).toEqual([bTest.endpointId]);
    expect(await ids(b.projectId, 'live')).toEqual([]);

    const disabled = await tessera('webhooks disable', { endpoint: aLive.endpointId });
    expect(disabled.endpoint).toMatchObject({ projectId: a.projectId, env: 'live', enabled: false });
    expect((await record(a.projectId, 'live', aLive.endpointId)).disabled).not.toBeNull();
    expect((await record(a.projectId, 'test', aTest.endpointId)).disabled).toBeNull();
    expect((await record(b.projectId, 'test', bTest.endpointId)).disabled).toBeNull();
    // The audit entry lands in the endpoint's own partition only.
    expect((await scopeOf(a.projectId, 'test').doc('audit', disabled.auditEventId).get()).exists).toBe(false);
    expect((await audit(a.projectId, 'live', disabled.auditEventId)).projectId).toBe(a.projectId);
  });
});
