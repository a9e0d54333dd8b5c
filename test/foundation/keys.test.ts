/**
 * Guarantees of API keys: format and unbiased randomness, publishable keys stored in plaintext
 * in an index and secret keys only as a SHA-256 hash, one key of each kind per app and
 * environment, rotation with a bounded grace, irreversible revocation, the activity list, and
 * scope maps fixed at creation (row-level scopes only with an acknowledgement).
 */
import { DAY, HOUR } from '../../functions/src/clock';
import { mintKey, parseKey, sha256Hex } from '../../functions/src/keys/format';
import { randomToken } from '../../functions/src/ids/random';
import { createKeys, listKeys, revokeKey, rotateKey } from '../../functions/src/keys/lifecycle';
import { AGGREGATE_SCOPES } from '../../functions/src/keys/scopes';
import { createApp, createProject } from '../../functions/src/projects/repository';
import { createTestService, seedProject, type TestService } from '../support/harness';

describe('key format (unit)', () => {
  it('mints cd_pub_/cd_sk_ keys with the env marker and a 32-character random suffix', () => {
    expect(mintKey('publishable', 'test')).toMatch(/^cd_pub_test_[A-Za-z0-9]{32}$/);
    expect(mintKey('secret', 'live')).toMatch(/^cd_sk_live_[A-Za-z0-9]{32}$/);
    expect(parseKey(mintKey('secret', 'test'))).toMatchObject({ kind: 'secret', env: 'test' });
    expect(parseKey('cd_sk_prod_abcdefghijklmnopqrstuvwxyz')).toBeNull();
  });

  it('draws suffix characters uniformly (no modulo bias)', () => {
    const counts = new Map<string, number>();
    const sample = randomToken(62 * 2000);
    for (const ch of sample) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(62);
    for (const n of counts.values()) expect(Math.abs(n - 2000)).toBeLessThan(300);
  });
});

describe('key lifecycle (store)', () => {
  let service: TestService;
  beforeAll(() => {
    service = createTestService();
  });

  it('stores publishable keys in plaintext and secret keys only as their hash', async () => {
    const project = await seedProject(service);
    const { db } = service.deps;
    const pub = await db.doc(`publishableKeys/${project.ios.test.publishable}`).get();
    expect(pub.exists).toBe(true);
    const secret = await db.doc(`secretKeys/${sha256Hex(project.ios.test.secret)}`).get();
    expect(secret.exists).toBe(true);
    expect(JSON.stringify(secret.data())).not.toContain(project.ios.test.secret);
    expect(secret.get('display')).toBe('cd_sk_test_••••••••');
  });

  it('allows one publishable and one secret key per app and environment', async () => {
    const project = await seedProject(service);
    await expect(createKeys(service.deps.db, { appId: project.ios.appId, env: 'test' }, service.clock.now())).rejects.toMatchObject({ code: 'conflict' });
  });

  it('gives secret keys the aggregate scopes by default and row-level scopes only with an acknowledgement', async () => {
    const { db } = service.deps;
    const now = service.clock.now();
    const projectRecord = await createProject(db, 'scopes', now);
    const app = await createApp(db, { projectId: projectRecord.projectId, platform: 'ios', bundleId: 'b' }, now);
    await expect(createKeys(db, { appId: app.appId, env: 'live', scopes: ['reporting:identity'] }, now)).rejects.toMatchObject({ code: 'invalid_argument' });
    const keys = await createKeys(db, { appId: app.appId, env: 'test' }, now);
    const live = await createKeys(db, { appId: app.appId, env: 'live', scopes: ['reporting:identity', 'crossmatch:read'], acknowledgeRowLevelData: true }, now);
    const listing = await listKeys(db, app.appId, now);
    const byId = new Map(listing.keys.map((k) => [k.id, k]));
    expect(byId.get(keys.secret.id)!.scopes).toEqual([...AGGREGATE_SCOPES]);
    expect(byId.get(live.secret.id)!.scopes).toEqual(['crossmatch:read', 'reporting:identity']);
    // Rotation never widens: the replacement carries the same map.
    const rotated = await rotateKey(db, keys.secret.id, 0, now);
    expect((await listKeys(db, app.appId, now)).keys.find((k) => k.id === rotated.newKey.id)!.scopes).toEqual([...AGGREGATE_SCOPES]);
  });

  it('rotates with a 7-day default grace (bounded), lists keys masked with their state and journals every change', async () => {
    const project = await seedProject(service);
    const { db } = service.deps;
    const now = service.clock.now();
    await expect(rotateKey(db, project.web.test.secret, 8 * DAY, now)).rejects.toMatchObject({ code: 'invalid_argument' });
    const rotated = await rotateKey(db, project.web.test.secret, 7 * DAY, now);
    expect(rotated.oldKeyExpiresAt).toBe(now + 7 * DAY);
    await expect(rotateKey(db, project.web.test.secret, HOUR, now)).rejects.toMatchObject({ code: 'conflict' });
    await revokeKey(db, project.web.test.publishable, now);
    await expect(revokeKey(db, project.web.test.publishable, now)).rejects.toMatchObject({ code: 'conflict' });
    const listing = await listKeys(db, project.web.appId, now);
    const states = Object.fromEntries(listing.keys.map((k) => [k.id, k.state]));
    expect(states[project.web.test.secretId]).toBe('grace');
    expect(states[rotated.newKey.id]).toBe('active');
    expect(states[project.web.test.publishableId]).toBe('revoked');
    expect(JSON.stringify(listing)).not.toContain(project.web.test.secret);
    expect(JSON.stringify(listing)).not.toContain(rotated.newKey.key);
    expect(listing.activity.map((a) => a.action)).toEqual(['created', 'created', 'created', 'created', 'rotated', 'revoked']);
    expect((await listKeys(db, project.web.appId, now + 7 * DAY)).keys.find((k) => k.id === project.web.test.secretId)!.state).toBe('expired');
  });
});
