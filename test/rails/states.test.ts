/**
 * Guarantees of the pure rail mappings: each rail's view of a subscription (App Store signed
 * transaction and renewal info, Stripe subscription object in old and new API shapes, Play
 * SubscriptionPurchaseV2) becomes the right state and access end; refunds and revocations take
 * access back; Pub/Sub pushes parse only when well formed.
 */
import type { JWSRenewalInfoDecodedPayload, JWSTransactionDecodedPayload } from '@apple/app-store-server-library';
import { DAY } from '../../functions/src/clock';
import { appleEventName, appleSnapshot } from '../../functions/src/rails/apple/state';
import { claimedNotificationEnvironment } from '../../functions/src/rails/apple/verifier';
import { readPush } from '../../functions/src/rails/google/pubsub';
import { playSnapshot } from '../../functions/src/rails/google/state';
import { paymentRefsOfCharge, paymentRefsOfInvoice, periodOfSubscription, productIdsOfSubscription, subscriptionIdOfInvoice } from '../../functions/src/rails/stripe/objects';
import { stripeSnapshot } from '../../functions/src/rails/stripe/state';

const T = Date.UTC(2026, 5, 1);

describe('App Store', () => {
  const txn = (fields: Partial<JWSTransactionDecodedPayload> = {}): JWSTransactionDecodedPayload => ({
    transactionId: '2',
    originalTransactionId: '1',
    productId: 'pro_monthly',
    purchaseDate: T - DAY,
    expiresDate: T + 29 * DAY,
    signedDate: T,
    ...fields,
  });
  const renewal = (fields: Partial<JWSRenewalInfoDecodedPayload>): JWSRenewalInfoDecodedPayload => ({ originalTransactionId: '1', autoRenewStatus: 1, ...fields });

  it('active until expiresDate; a non-expiring purchase is lifetime', () => {
    expect(appleSnapshot({ transaction: txn(), renewal: null, at: T })).toMatchObject({ subscriptionId: '1', state: 'active', accessUntil: T + 29 * DAY, revokedAt: null, willRenew: null });
    expect(appleSnapshot({ transaction: txn({ expiresDate: undefined }), renewal: null, at: T })).toMatchObject({ state: 'active', accessUntil: null });
  });

  it('lapsed: grace until gracePeriodExpiresDate, else billing retry, else expired', () => {
    const lapsed = txn({ expiresDate: T - 1000 });
    expect(appleSnapshot({ transaction: lapsed, renewal: renewal({ gracePeriodExpiresDate: T + 3 * DAY }), at: T })).toMatchObject({ state: 'grace', accessUntil: T + 3 * DAY });
    expect(appleSnapshot({ transaction: lapsed, renewal: renewal({ isInBillingRetryPeriod: true }), at: T })).toMatchObject({ state: 'billing_retry', accessUntil: T - 1000 });
    expect(appleSnapshot({ transaction: lapsed, renewal: renewal({ autoRenewStatus: 0 }), at: T })).toMatchObject({ state: 'expired', willRenew: false });
  });

  it('follows the notification status when it has one', () => {
    expect(appleSnapshot({ transaction: txn(), renewal: null, status: 3, at: T }).state).toBe('billing_retry');
    expect(appleSnapshot({ transaction: txn(), renewal: null, status: 4, at: T }).state).toBe('grace');
  });

  it('a revocation date takes access back: refund, or revoke for family sharing', () => {
    const revoked = txn({ revocationDate: T - 5000 });
    expect(appleSnapshot({ transaction: revoked, renewal: null, notificationType: 'REFUND', at: T })).toMatchObject({ state: 'refunded', revokedAt: T - 5000, accessUntil: T - 5000 });
    expect(appleSnapshot({ transaction: revoked, renewal: null, notificationType: 'REVOKE', at: T }).state).toBe('revoked');
    expect(appleSnapshot({ transaction: txn({ revocationDate: T, inAppOwnershipType: 'FAMILY_SHARED' }), renewal: null, at: T }).state).toBe('revoked');
    // REFUND_REVERSED re-signs the transaction without a revocation: access returns.
    expect(appleSnapshot({ transaction: txn(), renewal: null, notificationType: 'REFUND_REVERSED', status: 1, at: T })).toMatchObject({ state: 'active', revokedAt: null });
  });

  it('names events and reads the claimed environment without trusting it', () => {
    expect(appleEventName('DID_FAIL_TO_RENEW', 'GRACE_PERIOD')).toBe('DID_FAIL_TO_RENEW.GRACE_PERIOD');
    expect(appleEventName(undefined, undefined)).toBe('purchase_sync');
    const jws = (payload: unknown) => `e30.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.sig`;
    expect(claimedNotificationEnvironment(jws({ data: { environment: 'Production' } }))).toBe('Production');
    expect(claimedNotificationEnvironment(jws({ data: { environment: 'Xcode' } }))).toBe('Sandbox');
    expect(claimedNotificationEnvironment(jws({ summary: { environment: 'Sandbox' } }))).toBe('Sandbox');
    expect(claimedNotificationEnvironment(jws({}))).toBeNull();
    expect(claimedNotificationEnvironment('garbage')).toBeNull();
  });
});

describe('Stripe', () => {
  const s = (seconds: number) => Math.floor(seconds / 1000);
  const sub = (fields: Record<string, unknown> = {}) => ({
    id: 'sub_1',
    customer: 'cus_1',
    status: 'active',
    cancel_at_period_end: false,
    items: { data: [{ current_period_start: s(T - DAY), current_period_end: s(T + 29 * DAY), price: { product: 'prod_pro' } }] },
    ...fields,
  });

  it('maps statuses to states and access ends', () => {
    expect(stripeSnapshot(sub(), null, T)).toMatchObject({ state: 'active', productIds: ['prod_pro'], accessUntil: s(T + 29 * DAY) * 1000, willRenew: true });
    expect(stripeSnapshot(sub({ status: 'trialing', cancel_at_period_end: true }), null, T)).toMatchObject({ state: 'active', willRenew: false });
    expect(stripeSnapshot(sub({ status: 'past_due' }), null, T)).toMatchObject({ state: 'billing_retry', accessUntil: s(T - DAY) * 1000 });
    expect(stripeSnapshot(sub({ status: 'canceled', ended_at: s(T) }), null, T)).toMatchObject({ state: 'expired', accessUntil: s(T) * 1000 });
    expect(stripeSnapshot(sub({ status: 'incomplete' }), null, T).state).toBe('pending');
    expect(stripeSnapshot(sub({ status: 'paused' }), null, T).state).toBe('paused');
    expect(stripeSnapshot(sub({ cancel_at: s(T + DAY) }), null, T).accessUntil).toBe(s(T + DAY) * 1000);
  });

  it('reads the older API shape (period on the subscription, plan product)', () => {
    const old = { id: 'sub_2', status: 'active', current_period_start: 100, current_period_end: 200, items: { data: [{ plan: { product: 'prod_old' } }] } };
    expect(periodOfSubscription(old)).toEqual({ start: 100, end: 200 });
    expect(productIdsOfSubscription(old)).toEqual(['prod_old']);
  });

  it('a refund or a lost dispute overrides until a later paid invoice', () => {
    const refund = { at: T - 1000, chargeId: 'ch_1', reason: 'refund' as const };
    expect(stripeSnapshot(sub(), { customerId: 'cus_1', refund, lastPaidAt: T - 5000 }, T)).toMatchObject({ state: 'refunded', revokedAt: T - 1000 });
    expect(stripeSnapshot(sub(), { customerId: 'cus_1', refund: { ...refund, reason: 'dispute_lost' }, lastPaidAt: null }, T).state).toBe('revoked');
    expect(stripeSnapshot(sub(), { customerId: 'cus_1', refund, lastPaidAt: T }, T)).toMatchObject({ state: 'active', revokedAt: null });
  });

  it('finds subscriptions and payments on invoices and charges of both API shapes', () => {
    expect(subscriptionIdOfInvoice({ subscription: 'sub_old' })).toBe('sub_old');
    expect(subscriptionIdOfInvoice({ parent: { subscription_details: { subscription: { id: 'sub_new' } } } })).toBe('sub_new');
    expect(subscriptionIdOfInvoice({ id: 'in_1' })).toBeNull();
    expect(paymentRefsOfInvoice({ id: 'in_1', charge: 'ch_1', payment_intent: 'pi_1' })).toEqual(['in_1', 'ch_1', 'pi_1']);
    expect(paymentRefsOfInvoice({ id: 'in_2', payments: { data: [{ payment: { payment_intent: 'pi_2' } }] } })).toEqual(['in_2', 'pi_2']);
    expect(paymentRefsOfCharge({ id: 'ch_3', payment_intent: { id: 'pi_3' }, invoice: 'in_3' })).toEqual(['ch_3', 'pi_3', 'in_3']);
  });
});

describe('Google Play', () => {
  const play = (state: string, expiry: number, extra: Record<string, unknown> = {}) => ({
    subscriptionState: state,
    startTime: new Date(T - DAY).toISOString(),
    lineItems: [{ productId: 'pro_monthly', expiryTime: new Date(expiry).toISOString(), autoRenewingPlan: { autoRenewEnabled: true } }],
    ...extra,
  });

  it('maps subscription states to states and access ends', () => {
    expect(playSnapshot('h', play('SUBSCRIPTION_STATE_ACTIVE', T + DAY), T)).toMatchObject({ state: 'active', accessUntil: T + DAY, productIds: ['pro_monthly'], willRenew: true });
    expect(playSnapshot('h', play('SUBSCRIPTION_STATE_CANCELED', T + DAY), T)).toMatchObject({ state: 'active', accessUntil: T + DAY, willRenew: false });
    expect(playSnapshot('h', play('SUBSCRIPTION_STATE_CANCELED', T - DAY), T).state).toBe('expired');
    expect(playSnapshot('h', play('SUBSCRIPTION_STATE_IN_GRACE_PERIOD', T + DAY), T).state).toBe('grace');
    expect(playSnapshot('h', play('SUBSCRIPTION_STATE_ON_HOLD', T - DAY), T)).toMatchObject({ state: 'billing_retry', accessUntil: T - DAY });
    expect(playSnapshot('h', play('SUBSCRIPTION_STATE_PAUSED', T + DAY), T)).toMatchObject({ state: 'paused', accessUntil: T });
    expect(playSnapshot('h', play('SUBSCRIPTION_STATE_PENDING', T + DAY), T).state).toBe('pending');
  });

  it('a void or revocation takes access back', () => {
    expect(playSnapshot('h', play('SUBSCRIPTION_STATE_ACTIVE', T + DAY), T, T - 10, 'refunded')).toMatchObject({ state: 'refunded', revokedAt: T - 10, accessUntil: T - 10 });
    expect(playSnapshot('h', play('SUBSCRIPTION_STATE_ACTIVE', T + DAY), T, T, 'revoked').state).toBe('revoked');
  });

  it('parses a Pub/Sub push only when it carries a base64 notification and a message id', () => {
    const parsePush = (body: unknown) => {
      const read = readPush(body);
      return 'push' in read ? read.push : null;
    };
    const data = Buffer.from(JSON.stringify({ packageName: 'com.x' })).toString('base64');
    expect(parsePush({ message: { data, messageId: '123' } })).toEqual({ messageId: '123', notification: { packageName: 'com.x' } });
    expect(parsePush({ message: { data, message_id: '456' } })?.messageId).toBe('456');
    expect(parsePush({ message: { data } })).toBeNull();
    expect(parsePush({ message: { data: Buffer.from('not json').toString('base64'), messageId: '1' } })).toBeNull();
    expect(parsePush({ message: { data, messageId: '../../x' } })).toBeNull();
    expect(parsePush(null)).toBeNull();
  });
});
