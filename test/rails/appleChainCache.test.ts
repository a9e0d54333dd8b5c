/**
 * Issue 23 (CPU per notification): Apple's verifier checks each distinct certificate chain once
 * (rails/apple/chainCache.ts) instead of once per JWS, and the cache can never admit what the
 * library's full check would refuse: a different intermediate under a known leaf, a known chain
 * at a date it is not valid, a chain known under another configuration's roots, or a JWS a
 * known chain's key did not sign; with online checks on, OCSP still runs as often as the
 * library's own cache would let it (15 minutes). Counted on the library's own full check
 * (`verifyCertificateChainWithoutCaching`), which only a cache miss runs.
 */
import { randomUUID } from 'node:crypto';
import { SignedDataVerifier } from '@apple/app-store-server-library';
import { DAY } from '../../functions/src/clock';
import { setProduct } from '../../functions/src/entitlements/catalog';
import { ONLINE_RECHECK_MS } from '../../functions/src/rails/apple/chainCache';
import { AppleVerificationFailed, AppleVerifiers } from '../../functions/src/rails/apple/verifier';
import { writeRailConfig } from '../../functions/src/rails/config';
import { EnvScope } from '../../functions/src/store/scope';
import { AppleChain } from './support/appleChain';
import { APPLE_BUNDLE_ID, renewalPayload, signedNotification, transactionPayload } from './support/applePayloads';
import { createRailsWorld, type RailsWorld } from './support/railsWorld';
import { expectError, seedProject } from '../support/harness';

let world: RailsWorld;
let fullChecks: jest.SpyInstance;
/** The library's own `verifyJWT` (certificates parsed, the leaf key exported and imported again): only a JWS whose chain is not known yet, or that the fast path refused, runs it. */
let libraryJwsChecks: jest.SpyInstance;
beforeAll(async () => {
  world = await createRailsWorld();
});
beforeEach(() => {
  fullChecks = jest.spyOn(SignedDataVerifier.prototype as unknown as { verifyCertificateChainWithoutCaching: () => Promise<unknown> }, 'verifyCertificateChainWithoutCaching');
  libraryJwsChecks = jest.spyOn(SignedDataVerifier.prototype as unknown as { verifyJWT: () => Promise<unknown> }, 'verifyJWT');
});
afterEach(() => {
  fullChecks.mockRestore();
  libraryJwsChecks.mockRestore();
});
afterAll(async () => {
  await world.stop();
});

let tick = 0;
const signedDate = () => Date.now() + (tick += 1000);

/** A SUBSCRIBED notification whose payload and nested JWS are signed by `signer`'s leaf key, presenting `x5c`. */
function notification(signer: AppleChain, x5c: readonly string[], fields: { signedDate?: number } = {}): { signedPayload: string; notificationUUID: string } {
  const at = fields.signedDate ?? signedDate();
  const transaction = transactionPayload({ signedDate: at });
  const notificationUUID = randomUUID();
  const payload = {
    notificationType: 'SUBSCRIBED',
    subtype: 'INITIAL_BUY',
    notificationUUID,
    version: '2.0',
    signedDate: at,
    data: {
      environment: 'Sandbox',
      bundleId: APPLE_BUNDLE_ID,
      bundleVersion: '1.0',
      status: 1,
      signedTransactionInfo: signer.signPresenting(transaction, x5c),
      signedRenewalInfo: signer.signPresenting(renewalPayload({ originalTransactionId: transaction.originalTransactionId as string, signedDate: at }), x5c),
    },
  };
  return { signedPayload: signer.signPresenting(payload, x5c), notificationUUID };
}

/** A fresh project whose sandbox trusts only `chain`'s root (catalog: apple `pro_monthly` → pro). */
async function projectTrusting(chain: AppleChain): Promise<string> {
  const project = await seedProject(world.service);
  const scope = new EnvScope(world.service.deps.db, project.projectId, 'test');
  await writeRailConfig(scope, 'apple', { bundleId: APPLE_BUNDLE_ID, rootCertificates: [chain.rootBase64] }, world.service.clock.now());
  await setProduct(scope, 'apple', 'pro_monthly', ['pro'], world.service.clock.now());
  return project.projectId;
}

const postTo = (projectId: string, signedPayload: string) => world.service.request().post(`/v1/webhooks/apple/${projectId}`).send({ signedPayload });

/** Whether the project's sandbox holds an audit entry under this id. */
async function audited(projectId: string, eventId: string): Promise<boolean> {
  const scope = new EnvScope(world.service.deps.db, projectId, 'test');
  return (await scope.get(scope.doc('audit', eventId))).exists;
}

describe('App Store chain verification: once per distinct chain', () => {
  it('a notification (payload, transaction, renewal info: one chain) runs the full chain check once, the next one none', async () => {
    const chain = new AppleChain();
    const projectId = await projectTrusting(chain);
    const first = await postTo(projectId, notification(chain, chain.certificates).signedPayload);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ decision: 'applied', duplicate: false });
    expect(fullChecks).toHaveBeenCalledTimes(1);
    const second = await postTo(projectId, notification(chain, chain.certificates).signedPayload);
    expect(second.body).toMatchObject({ decision: 'applied', duplicate: false });
    expect(fullChecks).toHaveBeenCalledTimes(1);
    // Of the six JWS, only the first went through the library's verifyJWT; the chain known, the rest were checked by its key alone.
    expect(libraryJwsChecks).toHaveBeenCalledTimes(1);
  });

  it('under a known chain, a JWS the library would refuse is refused: tampered payload, another alg, an expired exp, a truncated signature', async () => {
    const chain = new AppleChain();
    const projectId = await projectTrusting(chain);
    expect((await postTo(projectId, notification(chain, chain.certificates).signedPayload)).status).toBe(200);
    const genuine = notification(chain, chain.certificates);
    const [header, , signature] = genuine.signedPayload.split('.');
    const decoded = JSON.parse(Buffer.from(genuine.signedPayload.split('.')[1], 'base64url').toString()) as Record<string, unknown> & { data: Record<string, unknown> };
    const payloadOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const renamed = { ...decoded, notificationUUID: randomUUID() };
    const forgeries: [string, string, string][] = [
      ['payload swapped under the genuine signature', `${header}.${payloadOf(renamed)}.${signature}`, renamed.notificationUUID],
      ['signature truncated', `${header}.${genuine.signedPayload.split('.')[1]}.${signature.slice(0, 40)}`, genuine.notificationUUID],
      ['alg ES384 (signed with the P-256 leaf key)', chain.signWithHeader(renamed, { alg: 'ES384' }), renamed.notificationUUID],
      ['alg none', `${Buffer.from(JSON.stringify({ alg: 'none', x5c: chain.certificates })).toString('base64url')}.${payloadOf(renamed)}.`, renamed.notificationUUID],
      ['exp in the past (refused by jose, then by the library)', chain.sign({ ...renamed, exp: Math.floor(Date.now() / 1000) - 60 }), renamed.notificationUUID],
    ];
    for (const [label, signedPayload, eventId] of forgeries) {
      const res = await postTo(projectId, signedPayload);
      expect([label, res.status]).toEqual([label, 401]);
      expect([label, await audited(projectId, eventId)]).toEqual([label, false]);
    }
    // None of them was accepted by the fast path: each went to the library, which refused it.
    expect(libraryJwsChecks).toHaveBeenCalledTimes(1 + forgeries.length);
    // The genuine one still passes (its renewal and transaction JWS too), without the library.
    const before = libraryJwsChecks.mock.calls.length;
    expect((await postTo(projectId, genuine.signedPayload)).body).toMatchObject({ decision: 'applied', duplicate: false });
    expect(libraryJwsChecks).toHaveBeenCalledTimes(before);
  });

  it('under a known chain, a JWS whose exp is still ahead is accepted without the library (jose judges its time claims)', async () => {
    const chain = new AppleChain();
    const projectId = await projectTrusting(chain);
    expect((await postTo(projectId, notification(chain, chain.certificates).signedPayload)).status).toBe(200);
    const at = signedDate();
    const transaction = transactionPayload({ signedDate: at });
    const payload = { notificationType: 'SUBSCRIBED', subtype: 'INITIAL_BUY', notificationUUID: randomUUID(), version: '2.0', signedDate: at, exp: Math.floor(Date.now() / 1000) + 600, data: { environment: 'Sandbox', bundleId: APPLE_BUNDLE_ID, bundleVersion: '1.0', status: 1, signedTransactionInfo: chain.sign(transaction) } };
    const before = libraryJwsChecks.mock.calls.length;
    expect((await postTo(projectId, chain.sign(payload))).body).toMatchObject({ decision: 'applied', duplicate: false });
    expect(libraryJwsChecks).toHaveBeenCalledTimes(before); // the payload (exp ahead) and its transaction: both under the known chain
  });

  it('a known leaf under a different intermediate is another chain: fully checked and refused, every time', async () => {
    const chain = new AppleChain();
    const projectId = await projectTrusting(chain);
    expect((await postTo(projectId, notification(chain, chain.certificates).signedPayload)).status).toBe(200);
    const other = new AppleChain();
    const mixed = [chain.certificates[0], other.certificates[1], chain.certificates[2]];
    for (let attempt = 1; attempt <= 2; attempt += 1) {
      const forged = notification(chain, mixed);
      expectError(await postTo(projectId, forged.signedPayload), 401, 'authentication_error', 'invalid_api_key');
      expect(await audited(projectId, forged.notificationUUID)).toBe(false);
      expect(fullChecks).toHaveBeenCalledTimes(1 + attempt); // a refused chain is never remembered
    }
  });

  it('a known chain is refused at a date its leaf is not valid (offline checks judge the signed date)', async () => {
    const chain = new AppleChain({ leafNotBefore: Date.now() - 10 * DAY, leafNotAfter: Date.now() + DAY });
    const projectId = await projectTrusting(chain);
    expect((await postTo(projectId, notification(chain, chain.certificates).signedPayload)).status).toBe(200);
    const calls = fullChecks.mock.calls.length;
    for (const at of [Date.now() + 3 * DAY, Date.now() - 30 * DAY]) {
      const late = notification(chain, chain.certificates, { signedDate: at });
      expectError(await postTo(projectId, late.signedPayload), 401, 'authentication_error', 'invalid_api_key');
      expect(await audited(projectId, late.notificationUUID)).toBe(false);
    }
    expect(fullChecks).toHaveBeenCalledTimes(calls); // refused by the cached entry's own date check
  });

  it('a chain verified for one project is refused by a project trusting other roots', async () => {
    const chain = new AppleChain();
    const trusting = await projectTrusting(chain);
    const elsewhere = await projectTrusting(new AppleChain());
    expect((await postTo(trusting, notification(chain, chain.certificates).signedPayload)).status).toBe(200);
    const { signedPayload, notificationUUID } = notification(chain, chain.certificates);
    expectError(await postTo(elsewhere, signedPayload), 401, 'authentication_error', 'invalid_api_key');
    expect(await audited(elsewhere, notificationUUID)).toBe(false);
  });

  it('a JWS presenting a known chain but signed by another key is refused', async () => {
    const chain = new AppleChain();
    const projectId = await projectTrusting(chain);
    expect((await postTo(projectId, notification(chain, chain.certificates).signedPayload)).status).toBe(200);
    const forger = new AppleChain();
    const forged = notification(forger, chain.certificates);
    expectError(await postTo(projectId, forged.signedPayload), 401, 'authentication_error', 'invalid_api_key');
    expect(await audited(projectId, forged.notificationUUID)).toBe(false);
    // Only the nested transaction forged: refused too.
    const genuine = signedNotification(chain, { notificationType: 'SUBSCRIBED', status: 1, signedDate: signedDate() });
    const decoded = JSON.parse(Buffer.from(genuine.signedPayload.split('.')[1], 'base64url').toString()) as { data: Record<string, unknown> };
    decoded.data.signedTransactionInfo = forger.signPresenting(transactionPayload(), chain.certificates);
    expectError(await postTo(projectId, chain.sign(decoded)), 401, 'authentication_error', 'invalid_api_key');
  });

  it('with online checks on, OCSP runs once per chain and again once 15 minutes passed; a revoked answer is never covered by the cache', async () => {
    // Apple's revocation service is not reachable from tests: OCSP is answered here, for this test only.
    let revoked = false;
    const ocsp = jest.spyOn(SignedDataVerifier.prototype as unknown as { checkOCSPStatus: () => Promise<void> }, 'checkOCSPStatus').mockImplementation(async () => {
      if (revoked) throw new Error('revoked');
    });
    const clock = jest.spyOn(Date, 'now');
    try {
      const config = { bundleId: APPLE_BUNDLE_ID, rootCertificates: [world.apple.rootBase64] };
      const verifiers = new AppleVerifiers(true);
      const verify = () => verifiers.verifyTransactionIn(config, 'Sandbox', world.apple.sign(transactionPayload()));
      await verify();
      await verify();
      expect(ocsp).toHaveBeenCalledTimes(2); // leaf and intermediate, once for both JWS
      // Ours replaces the library's own cache, which is never bounded and whose clean-up throws past 32 chains.
      const verifier = (await verifiers.forEnvironment(config, 'Sandbox')) as unknown as { verifiedPublicKeyCache: object };
      expect(verifier.verifiedPublicKeyCache).toEqual({});
      const start = Date.now();
      clock.mockReturnValue(start + ONLINE_RECHECK_MS);
      await verify();
      expect(ocsp).toHaveBeenCalledTimes(4);
      clock.mockReturnValue(start + 2 * ONLINE_RECHECK_MS);
      revoked = true;
      await expect(verify()).rejects.toThrow(AppleVerificationFailed);
      await expect(verify()).rejects.toThrow(AppleVerificationFailed); // a refusal is never cached as a pass
    } finally {
      clock.mockRestore();
      ocsp.mockRestore();
    }
  });
});
