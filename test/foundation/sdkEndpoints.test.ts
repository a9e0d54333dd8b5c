/**
 * Guarantees of GET /v1/config and GET /v1/sdk/heartbeat: bodies, timestamps and
 * Cache-Control exactly as specified; liveness per app and per SDK surface resolved from
 * Service-Sdk-Version (never from the key); a storage failure still answers ok: true.
 */
import type { LivenessRecorder } from '../../functions/src/sdk/liveness';
import { createTestService, lockHeaders, seedProject } from '../support/harness';

describe('GET /v1/config', () => {
  it('returns the config object, public for 60 s', async () => {
    const service = createTestService();
    const project = await seedProject(service);
    const res = await service.request().get('/v1/config').set({ Authorization: `Bearer ${project.web.live.publishable}`, ...lockHeaders('web'), 'Service-Sdk-Version': '@tessera/web@2.4.0' });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=60');
    // A shared cache keys the config on every header that selects the key or changes the answer.
    const vary = String(res.headers.vary).split(',').map((name) => name.trim().toLowerCase());
    expect(vary).toEqual(expect.arrayContaining(['authorization', 'service-api-key', 'origin', 'x-service-bundle-id', 'x-service-package-name', 'service-sdk-version']));
    expect(res.body).toEqual({
      object: 'config',
      env: 'production',
      projectId: project.projectId,
      appId: project.web.appId,
      platform: 'web',
      allowedOrigins: ['https://app.example.com'],
      sdk: { minVersion: '2.0.0', deprecatedVersions: [] },
      verifierConfig: { logVerifierResults: null, verifyContractsAtBoot: null },
      errorNoiseDenyList: expect.objectContaining({ version: 1 }),
      serverTime: service.clock.now(),
    });
  });

  it('names the key headers in Vary for every platform, with or without an Origin', async () => {
    const service = createTestService();
    const project = await seedProject(service);
    const res = await service.request().get('/v1/config').set({ 'Service-Api-Key': project.ios.test.publishable, ...lockHeaders('ios') });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=60');
    expect(String(res.headers.vary)).toMatch(/Authorization.*Service-Api-Key.*Origin.*X-Service-Bundle-Id.*X-Service-Package-Name/);
  });
});

describe('GET /v1/sdk/heartbeat', () => {
  it('answers with the heartbeat body, no-store, and records app and surface liveness', async () => {
    const service = createTestService();
    const project = await seedProject(service);
    const res = await service.request().get('/v1/sdk/heartbeat').set({ Authorization: `Bearer ${project.ios.test.publishable}`, ...lockHeaders('ios'), 'Service-Sdk-Version': 'TesseraSwift@1.9.0' });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({ object: 'heartbeat', ok: true, projectId: project.projectId, appId: project.ios.appId, platform: 'ios', env: 'sandbox', serverTime: service.clock.now() });
    const base = `projects/${project.projectId}/envs/test/liveness`;
    const app = await service.deps.db.doc(`${base}/app_${project.ios.appId}`).get();
    const surface = await service.deps.db.doc(`${base}/surface_swift`).get();
    expect(app.get('lastSeenAt')).toBe(service.clock.now());
    expect(surface.get('lastSdk')).toBe('TesseraSwift@1.9.0');
    // Nothing leaks into the live partition.
    expect((await service.deps.db.doc(`projects/${project.projectId}/envs/live/liveness/app_${project.ios.appId}`).get()).exists).toBe(false);
  });

  it('still answers ok: true when the liveness write fails', async () => {
    const failing: LivenessRecorder = { record: async () => Promise.reject(new Error('storage down')) };
    const service = createTestService({ liveness: failing });
    const project = await seedProject(service);
    const res = await service.request().get('/v1/sdk/heartbeat').set('Authorization', `Bearer ${project.android.live.secret}`);
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(true);
    expect(res.body.env).toBe('production');
  });
});
