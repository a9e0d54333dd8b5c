/**
 * Guarantees for rail notifications whose signature verifies but whose body the service cannot
 * use (issue 11, item 3; and item 1 for strings inside verified payloads): Stripe bodies that
 * are not event objects, with a `data` or `id` of the wrong type, or an id that cannot name a
 * document; App Store payloads and Play push data with missing fields, wrong types, unusable ids
 * or strings that are not well-formed Unicode. Each is answered 200 (the rail stops
 * retrying the same bytes), audited once as `rejected` (signature verified) in the partition its
 * verification established, under its own event id when usable and otherwise an id derived from
 * the verified bytes; nothing else is written, and a re-delivery is a duplicate. And the
 * issue's unverified repros (a forged body claiming a lone-surrogate id) are refused
 * with a 4xx, logged with the request id, and write nothing.
 */
import { randomUUID } from 'node:crypto';
import Stripe from 'stripe';
import type { Env } from '../../functions/src/store/env';
import { rejectionEventId } from '../../functions/src/rails/http/rejection';
import { railLogs } from '../../functions/src/rails/logs';
import { signedNotification, transactionPayload } from './support/applePayloads';
import { nextPurchaseToken, pushBody } from './support/googleFake';
import { AppleChain } from './support/appleChain';
import { auditOf, createRailsWorld, PLAY_PACKAGE, postApple, postGoogle, storedDocuments, WEBHOOK_SECRETS, type RailsWorld } from './support/railsWorld';

let world: RailsWorld;
beforeAll(async () => {
  world = await createRailsWorld();
});
afterAll(async () => {
  await world.stop();
});

type Send = () => Promise<{ status: number; body: Record<string, unknown> }>;

/**
 * Sends a verified-but-unusable notification twice: the first is recorded as one `rejected`
 * entry under `eventId` in `env` and nothing else; the second is a duplicate that writes nothing.
 */
async function expectRejectedOnce(send: Send, env: Env, eventId: string, reason: RegExp): Promise<void> {
  const before = await storedDocuments(world);
  const logged = jest.spyOn(railLogs, 'notificationRejected');
  try {
    const first = await send();
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ object: 'rail_notification', eventId, env: env === 'live' ? 'production' : 'sandbox', decision: 'rejected', reason: expect.stringMatching(reason), duplicate: false });
    expect(logged).toHaveBeenCalledWith(expect.any(String), expect.any(String), world.project.projectId, env, eventId, expect.stringMatching(reason), false);
  } finally {
    logged.mockRestore();
  }
  const audit = await auditOf(world, env, eventId);
  expect(audit).toMatchObject({ decision: 'rejected', signatureVerified: true, reconciledWithProvider: false, customerId: null, subscriptionId: null, env });
  expect(audit!.reason).toMatch(reason);
  const after = await storedDocuments(world);
  const key = `${env}/audit`;
  expect(after).toEqual({ ...before, [key]: (before[key] ?? 0) + 1 });

  const again = await send();
  expect(again.status).toBe(200);
  expect(again.body).toMatchObject({ eventId, decision: 'rejected', duplicate: true });
  expect(await storedDocuments(world)).toEqual(after);
}

describe('Stripe: signed bodies that are not usable events', () => {
  /** Signed with a mode's real signing secret, exactly as Stripe signs (fresh header each delivery). */
  const postSigned = (payload: string, env: Env = 'test') => () =>
    world.service
      .request()
      .post(`/v1/webhooks/stripe/${world.project.projectId}`)
      .set('Content-Type', 'application/json')
      .set('Stripe-Signature', Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRETS[env] }))
      .send(payload);
  const derived = (payload: string) => rejectionEventId('stripe', undefined, Buffer.from(payload));
  const event = (fields: Record<string, unknown>) => ({
    id: `evt_${randomUUID().replace(/-/g, '')}`,
    object: 'event',
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    type: 'customer.subscription.updated',
    data: { object: { id: `sub_${randomUUID().replace(/-/g, '')}`, object: 'subscription', customer: 'cus_x' } },
    ...fields,
  });

  it.each(['null', '[]', '0', '"str"', 'true'])('body %s: rejected under an id derived from the body', async (payload) => {
    await expectRejectedOnce(postSigned(payload), 'test', derived(payload), /^malformed_event: the body is not an event object$/);
  });

  it('a body that claims no mode belongs to the mode whose secret verified it', async () => {
    await expectRejectedOnce(postSigned('[1]', 'live'), 'live', derived('[1]'), /^malformed_event: the body is not an event object$/);
  });

  it.each([
    ['data {}', { data: {} }],
    ['data a string', { data: 'customer.subscription.updated' }],
    ['data a number', { data: 42 }],
  ])('%s: rejected under its own (usable) event id', async (_, fields) => {
    const body = event(fields);
    await expectRejectedOnce(postSigned(JSON.stringify(body)), 'test', body.id as string, /^malformed_event: `data.object`/);
  });

  it.each([
    ['id an object', { id: { evt: 1 } }],
    ['id an array', { id: ['evt_1'] }],
    ['id missing', { id: undefined }],
    ['id a path', { id: 'cdcust_../../x' }],
    ['id reserved', { id: '__evt__' }],
  ])('%s: rejected under an id derived from the body', async (_, fields) => {
    const payload = JSON.stringify(event(fields));
    await expectRejectedOnce(postSigned(payload), 'test', derived(payload), /^malformed_event: `id`/);
  });

  it('a lone surrogate as the id of a signed body: verified first, then rejected under an id derived from the body', async () => {
    const payload = JSON.stringify(event({ id: '\ud800' }));
    await expectRejectedOnce(postSigned(payload), 'test', derived(payload), /ill-formed Unicode at id$/);
  });

  it('a lone surrogate deep in a signed event: rejected under its own (usable) event id', async () => {
    const body = event({ data: { object: { id: 'sub_x', object: 'subscription', metadata: { note: 'x\udfff' } } } });
    await expectRejectedOnce(postSigned(JSON.stringify(body)), 'test', body.id as string, /ill-formed Unicode at data\.object\.metadata\.note$/);
  });

  it.each([
    ['not JSON', Buffer.from('{"id": "evt_1", '), /the body is not JSON$/],
    ['not UTF-8', Buffer.concat([Buffer.from('{"id":"evt_'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]), /the body is not UTF-8$/],
  ])('signed bytes that are %s: rejected under an id derived from the bytes', async (_, bytes, reason) => {
    // Stripe's library verifies text: a signature over bytes that are not UTF-8 is computed on their decoded text.
    const signedText = bytes.toString('utf8');
    const send = () =>
      world.service
        .request()
        .post(`/v1/webhooks/stripe/${world.project.projectId}`)
        .set('Content-Type', 'application/json')
        .set('Stripe-Signature', Stripe.webhooks.generateTestHeaderString({ payload: signedText, secret: WEBHOOK_SECRETS.test }))
        .serialize((body: unknown) => body as string) // the bytes as given (superagent would JSON-encode a Buffer)
        .send(bytes);
    await expectRejectedOnce(send, 'test', rejectionEventId('stripe', undefined, bytes), reason);
  });

  it('a subscription id that cannot name a document: rejected before Stripe is asked or a customer is made', async () => {
    const body = event({ data: { object: { id: 'sub_../../x', object: 'subscription', customer: 'cus_y' } } });
    const reads = world.stripe.reads;
    await expectRejectedOnce(postSigned(JSON.stringify(body)), 'test', body.id as string, /^malformed_event: the subscription id/);
    expect(world.stripe.reads).toBe(reads);
  });
});

describe('App Store: signed payloads that are not usable notifications', () => {
  let signedDate = Date.now();
  /** A notification signed by the configured chain, with `edit` applied to the decoded payload before signing. */
  function signed(edit: (payload: Record<string, unknown>) => void, transaction?: Record<string, unknown>): string {
    const { signedPayload } = signedNotification(world.apple, { notificationType: 'SUBSCRIBED', subtype: 'INITIAL_BUY', transaction, status: 1, signedDate: (signedDate += 1000) });
    const payload = JSON.parse(Buffer.from(signedPayload.split('.')[1], 'base64url').toString('utf8')) as Record<string, unknown>;
    edit(payload);
    return world.apple.sign(payload);
  }
  const send = (signedPayload: string) => () => postApple(world, signedPayload);
  const derived = (signedPayload: string) => rejectionEventId('apple', undefined, signedPayload);

  it.each([
    ['no notificationUUID', undefined],
    ['a lone surrogate as notificationUUID', '\ud800'],
    ['a path as notificationUUID', '../../x'],
  ])('%s: rejected under an id derived from the signed payload', async (_, uuid) => {
    const signedPayload = signed((payload) => {
      if (uuid === undefined) delete payload.notificationUUID;
      else payload.notificationUUID = uuid;
    });
    await expectRejectedOnce(send(signedPayload), 'test', derived(signedPayload), /^malformed_payload: notification/);
  });

  it('a lone surrogate anywhere in the payload: rejected under its notificationUUID', async () => {
    const uuid = randomUUID();
    const signedPayload = signed((payload) => Object.assign(payload, { notificationUUID: uuid, subtype: 'INITIAL\udc00BUY' }));
    await expectRejectedOnce(send(signedPayload), 'test', uuid, /ill-formed Unicode at \S+$/);
  });

  // Apple's library checks the decoded payload's field types before the signature, so such a body
  // is never verified: it is refused like a forgery (401) and writes nothing.
  it.each([
    ['a number as notificationUUID', (payload: Record<string, unknown>) => Object.assign(payload, { notificationUUID: 7 }), undefined],
    ['a string as signedDate', (payload: Record<string, unknown>) => Object.assign(payload, { signedDate: 'yesterday' }), undefined],
    ['a number as the transaction productId', () => undefined, { ...transactionPayload(), productId: 12 }],
    ['a string as the transaction expiresDate', () => undefined, { ...transactionPayload(), expiresDate: 'soon' }],
  ])('%s is refused by the verifier itself (401), and nothing is written', async (_, edit, transaction) => {
    const before = await storedDocuments(world);
    const res = await postApple(world, signed(edit, transaction));
    expect(res.status).toBe(401);
    expect(await storedDocuments(world)).toEqual(before);
  });

  it.each([
    ['a lone surrogate in appAccountToken', { appAccountToken: '\ud800' }, /ill-formed Unicode at (.*\.)?appAccountToken$/],
    ['a lone surrogate in transactionId', { transactionId: 'x\udfff' }, /ill-formed Unicode at (.*\.)?transactionId$/],
    ['a path as originalTransactionId', { originalTransactionId: '1/2' }, /`originalTransactionId` is not a usable id$/],
    ['a reserved originalTransactionId', { originalTransactionId: '__x__' }, /`originalTransactionId` is not a usable id$/],
  ])('a signed transaction with %s: rejected under the notificationUUID, no customer made', async (_, fields, reason) => {
    const uuid = randomUUID();
    const signedPayload = signed((payload) => Object.assign(payload, { notificationUUID: uuid }), { ...transactionPayload(), ...fields });
    await expectRejectedOnce(send(signedPayload), 'test', uuid, reason);
  });
});

describe('Google Play: verified pushes whose data is not a usable notification', () => {
  const token = () => world.google.pushToken({ audience: world.pushAudience });
  const send = (body: Record<string, unknown>) => async () => postGoogle(world, body, await token());
  const withData = (data: string, messageId = `${Date.now()}${Math.floor(Math.random() * 1e6)}`) => ({ message: { data, messageId, publishTime: new Date().toISOString() }, subscription: 'projects/p/subscriptions/s' });
  const base64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64');
  const notification = (subscriptionNotification: unknown) => ({ version: '1.0', packageName: PLAY_PACKAGE, eventTimeMillis: String(Date.now()), subscriptionNotification });

  it.each([
    ['no message', { subscription: 'projects/p/subscriptions/s' }],
    ['a message id that is a path', withData(base64({}), '../../x')],
  ])('%s: rejected under an id derived from the body', async (_, body) => {
    await expectRejectedOnce(send(body), 'live', rejectionEventId('google', undefined, Buffer.from(JSON.stringify(body))), /^malformed_push: /);
  });

  it.each([
    ['data that is not base64 JSON', base64('{"version":'), /is not base64 JSON$/],
    ['data that is a JSON array', base64([1, 2]), /is not a JSON object$/],
    ['a number as purchaseToken', base64(notification({ notificationType: 4, purchaseToken: 12345 })), /purchaseToken` is not a usable token$/],
    ['a lone surrogate in purchaseToken', base64(notification({ notificationType: 4, purchaseToken: `${nextPurchaseToken()}\ud800` })), /ill-formed Unicode at (.*\.)?purchaseToken$/],
    ['a lone surrogate in packageName', base64({ ...notification({ notificationType: 4, purchaseToken: nextPurchaseToken() }), packageName: '\udbff' }), /ill-formed Unicode at (.*\.)?packageName$/],
    ['a string as subscriptionNotification', base64(notification('SUBSCRIPTION_PURCHASED')), /`subscriptionNotification` is not an object$/],
    ['an object as notificationType', base64(notification({ notificationType: { n: 4 }, purchaseToken: nextPurchaseToken() })), /notificationType` is not a number$/],
  ])('%s: rejected under the message id, Play never asked', async (_, data, reason) => {
    const body = withData(data);
    const reads = world.google.playRequests.length;
    await expectRejectedOnce(send(body), 'live', body.message.messageId, reason);
    expect(world.google.playRequests.length).toBe(reads);
  });

  it('a push whose body is not JSON, once its token verified: rejected under an id derived from the body', async () => {
    const bytes = '{"message": {"data": ';
    const send = async () => world.service.request().post(`/v1/webhooks/google/${world.project.projectId}`).set('Content-Type', 'application/json').set('Authorization', `Bearer ${await token()}`).send(bytes);
    await expectRejectedOnce(send, 'live', rejectionEventId('google', undefined, Buffer.from(bytes)), /^malformed_body: the body is not JSON$/);
  });

  it('a well-formed push still drives the usual decision (the checks refuse only what is unusable)', async () => {
    const body = pushBody({ version: '1.0', packageName: PLAY_PACKAGE, eventTimeMillis: String(Date.now()), testNotification: { version: '1.0' } });
    const res = await send(body)();
    expect(res.body).toMatchObject({ decision: 'no_op', reason: 'test_notification', duplicate: false });
  });
});

describe('unverified bodies claiming ids the store cannot encode', () => {
  /** Refused 401 for the signature or token (the content is never judged first), logged, nothing written. */
  async function expectRefused(send: Send, rail: string): Promise<void> {
    const before = await storedDocuments(world);
    const logged = jest.spyOn(railLogs, 'notificationUnverified');
    try {
      const res = await send();
      expect(res.status).toBe(401);
      const error = res.body.error as { request_id: string };
      expect(logged).toHaveBeenCalledWith(error.request_id, rail, world.project.projectId, expect.any(String));
    } finally {
      logged.mockRestore();
    }
    expect(await storedDocuments(world)).toEqual(before);
  }

  it('App Store: a payload signed by another chain whose notificationUUID is a lone surrogate', async () => {
    const forged = signedNotification(new AppleChain(), { notificationType: 'SUBSCRIBED', transaction: transactionPayload(), status: 1, notificationUUID: '\ud800' });
    await expectRefused(() => postApple(world, forged.signedPayload), 'apple');
  });

  it('App Store: an unsigned payload (no signature at all) whose notificationUUID is a lone surrogate', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'ES256' })).toString('base64url');
    const body = Buffer.from(JSON.stringify({ notificationType: 'TEST', notificationUUID: '\ud800', signedDate: Date.now(), data: { environment: 'Sandbox' } })).toString('base64url');
    await expectRefused(() => postApple(world, `${header}.${body}.`), 'apple');
  });

  it('Stripe: a bad Stripe-Signature on a body whose id is a lone surrogate', async () => {
    const payload = JSON.stringify({ id: '\ud800', object: 'event', livemode: false, type: 'invoice.paid', created: 1, data: { object: {} } });
    const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_not_the_endpoint_secret' });
    await expectRefused(
      () => world.service.request().post(`/v1/webhooks/stripe/${world.project.projectId}`).set('Content-Type', 'application/json').set('Stripe-Signature', header).send(payload),
      'stripe',
    );
  });

  it('Play: a push without a valid token whose data carries a lone-surrogate purchase token', async () => {
    const data = Buffer.from(JSON.stringify({ packageName: PLAY_PACKAGE, subscriptionNotification: { notificationType: 4, purchaseToken: '\ud800' } })).toString('base64');
    await expectRefused(() => postGoogle(world, { message: { data, messageId: '123456' } }, 'not-a-token'), 'google');
  });
});
