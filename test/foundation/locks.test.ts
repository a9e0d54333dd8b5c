/**
 * Guarantees of the platform identity locks (publishable keys only): web origins with the
 * single-label wildcard and fail-closed empty allowlist (decisions.md), first-origin learning on
 * heartbeat, iOS bundle id and Android package name; secret keys skip every lock.
 */
import { originAllowed, originsToLearn } from '../../functions/src/keys/origins';
import { createTestService, expectError, seedProject, type TestService } from '../support/harness';

describe('origin matching (unit)', () => {
  const list = ['https://app.example.com', 'https://*.shop.example.com', 'http://localhost:3000'];
  it.each([
    ['https://app.example.com', true],
    ['https://APP.example.com', false],
    ['http://app.example.com', false],
    ['https://app.example.com:8443', false],
    ['https://a.shop.example.com', true],
    ['https://a.b.shop.example.com', false],
    ['https://shop.example.com', false],
    ['https://.shop.example.com', false],
    ['http://localhost:3000', true],
    ['http://localhost:3001', false],
  ])('%s → %s', (origin, allowed) => {
    expect(originAllowed(origin, list)).toBe(allowed);
  });

  it('learns the origin plus its registrable apex from the public suffix list', () => {
    expect(originsToLearn('https://app.example.co.uk')).toEqual(['https://app.example.co.uk', 'https://example.co.uk']);
    expect(originsToLearn('https://example.com')).toEqual(['https://example.com']);
    expect(originsToLearn('http://localhost:5173')).toEqual(['http://localhost:5173']);
    expect(originsToLearn('https://shop.example.com:8443')).toEqual(['https://shop.example.com:8443', 'https://example.com:8443']);
  });
});

describe('locks on the wire', () => {
  let service: TestService;
  beforeAll(() => {
    service = createTestService();
  });

  it('web: exact and wildcard origins pass; others, and no origin, get 403 origin_not_allowed', async () => {
    const project = await seedProject(service, { webOrigins: ['https://app.example.com', 'https://*.example.org'] });
    const get = (origin?: string) => {
      const req = service.request().get('/v1/config').set('Authorization', `Bearer ${project.web.test.publishable}`);
      return origin ? req.set('Origin', origin) : req;
    };
    expect((await get('https://app.example.com')).status).toBe(200);
    expect((await get('https://eu.example.org')).status).toBe(200);
    expectError(await get('https://a.eu.example.org'), 403, 'permission_error', 'origin_not_allowed');
    expectError(await get('https://example.org'), 403, 'permission_error', 'origin_not_allowed');
    expectError(await get(), 403, 'permission_error', 'origin_not_allowed');
  });

  it('web: an empty allowlist fails closed, heartbeat learns the first origin and its apex, then the lock holds', async () => {
    const project = await seedProject(service, { webOrigins: [] });
    const key = project.web.test.publishable;
    expectError(await service.request().get('/v1/config').set({ Authorization: `Bearer ${key}`, Origin: 'https://app.newsite.com' }), 403, 'permission_error', 'origin_not_allowed');
    const beat = await service.request().get('/v1/sdk/heartbeat').set({ Authorization: `Bearer ${key}`, Origin: 'https://app.newsite.com' });
    expect(beat.status).toBe(200);
    const config = await service.request().get('/v1/config').set({ Authorization: `Bearer ${key}`, Origin: 'https://app.newsite.com' });
    expect(config.status).toBe(200);
    expect(config.body.allowedOrigins).toEqual(['https://app.newsite.com', 'https://newsite.com']);
    expect((await service.request().get('/v1/config').set({ Authorization: `Bearer ${key}`, Origin: 'https://newsite.com' })).status).toBe(200);
    // Learning happens once: a second site is refused, on heartbeat too.
    expectError(await service.request().get('/v1/sdk/heartbeat').set({ Authorization: `Bearer ${key}`, Origin: 'https://other.com' }), 403, 'permission_error', 'origin_not_allowed');
    // The live key of the same app shares the learned allowlist.
    expect((await service.request().get('/v1/config').set({ Authorization: `Bearer ${project.web.live.publishable}`, Origin: 'https://newsite.com' })).status).toBe(200);
  });

  it('iOS and Android: exact, case-sensitive bundle id and package name', async () => {
    const project = await seedProject(service);
    const ios = (bundle?: string) => {
      const req = service.request().get('/v1/config').set('Authorization', `Bearer ${project.ios.test.publishable}`);
      return bundle ? req.set('X-Service-Bundle-Id', bundle) : req;
    };
    expect((await ios('com.example.app')).status).toBe(200);
    expectError(await ios('com.example.App'), 403, 'permission_error', 'bundle_id_not_allowed');
    expectError(await ios(), 403, 'permission_error', 'bundle_id_not_allowed');
    const android = (pkg: string) => service.request().get('/v1/config').set({ Authorization: `Bearer ${project.android.test.publishable}`, 'X-Service-Package-Name': pkg });
    expect((await android('com.example.android')).status).toBe(200);
    expectError(await android('com.example.other'), 403, 'permission_error', 'package_name_not_allowed');
  });

  it('secret keys skip the locks entirely', async () => {
    const project = await seedProject(service);
    const res = await service.request().get('/v1/sdk/heartbeat').set({ Authorization: `Bearer ${project.web.test.secret}`, Origin: 'https://anything.invalid' });
    expect(res.status).toBe(200);
  });
});
