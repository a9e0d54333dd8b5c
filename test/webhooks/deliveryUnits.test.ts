/**
 * Guarantees of the delivery's pure parts: the signature header is the documented scheme (one
 * `v1` per secret, in the order given, over "<t>.<exact body>"); the queue's retry delay grows
 * exponentially from 30 s to a 4 h ceiling; the queue retry policies keep the erasure and
 * identity queues' backoff and give deliveries 25 attempts within 3 days; a malformed task
 * payload is recognised; the deployed task functions carry each queue's one retry and rate
 * declaration, which the in-process queue applies too; the README's verification snippet accepts what the service signs, with the
 * old or the new secret during a rotation, and refuses anything else.
 */
import * as crypto from 'node:crypto';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { InProcessTaskQueue } from '../../functions/src/tasks/inProcessQueue';
import { MAX_DELIVERY_ATTEMPTS, policyBackoffSeconds, QUEUE_CONFIGS, QUEUE_NAMES, RETRY_POLICIES, RETRY_POLICY, type QueueName } from '../../functions/src/tasks/queue';
import { parseDeliveryTask } from '../../functions/src/webhooks/deliveryModel';
import { queueRetryDelaySeconds } from '../../functions/src/webhooks/deliveryPolicy';
import { eventBody, signatureHeader, standardSignatureHeader, standardWebhooksKey } from '../../functions/src/webhooks/signature';
import { mintSigningSecret } from '../../functions/src/webhooks/signingSecret';
import { Webhook } from 'standardwebhooks';
import { requireDeployedEntry } from '../support/functionsEnv';
import { verifyAll } from './deliverySupport';

describe('signatureHeader', () => {
  const body = Buffer.from('{"id":"evt_1","data":{"name":"Zoë"}}', 'utf8');
  it('signs "<t>.<body>" with each secret, in order', () => {
    const header = signatureHeader(['whsec_new', 'whsec_old'], 1_795_350_377, body);
    const expected = (secret: string) => createHmac('sha256', secret).update(`1795350377.${body.toString('utf8')}`).digest('hex');
    expect(header).toBe(`t=1795350377,v1=${expected('whsec_new')},v1=${expected('whsec_old')}`);
    expect(verifyAll(header, body, 'whsec_old', 1_795_350_377 + 299)).toEqual([false, true]);
    expect(verifyAll(header, body, 'whsec_old', 1_795_350_377 + 301)).toEqual([false, false]); // outside the 5-minute tolerance
    expect(verifyAll(header, Buffer.concat([body, Buffer.from(' ')]), 'whsec_old', 1_795_350_377)).toEqual([false, false]);
  });
  it('needs a secret', () => {
    expect(() => signatureHeader([], 1, body)).toThrow();
  });
});

describe('standardSignatureHeader', () => {
  const body = Buffer.from('{"id":"evt_1","data":{"name":"Zoë"}}', 'utf8');
  const key = Buffer.from(Array.from({ length: 32 }, (_, i) => 250 - i)); // bytes whose base64 and base64url differ
  const standard = `whsec_${key.toString('base64')}`;
  const legacy = `whsec_${key.toString('base64url')}`;
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = (secret: string) => ({ 'webhook-id': 'evt_1', 'webhook-timestamp': String(timestamp), 'webhook-signature': standardSignatureHeader([secret], 'evt_1', timestamp, body) });

  it('signs "<id>.<timestamp>.<body>" with the key the secret encodes, one v1 per secret', () => {
    const expected = createHmac('sha256', key).update(`evt_1.${timestamp}.`).update(body).digest('base64');
    expect(standardSignatureHeader([standard, legacy], 'evt_1', timestamp, body)).toBe(`v1,${expected} v1,${expected}`);
    expect(new Webhook(standard).verify(body.toString('utf8'), headers(standard))).toEqual(JSON.parse(body.toString('utf8')));
  });
  it('signs with a secret minted as base64url the same key: the standard base64 of it verifies', () => {
    expect(() => new Webhook(legacy).verify(body.toString('utf8'), headers(legacy))).toThrow(); // the library reads standard base64 only
    expect(new Webhook(standard).verify(body.toString('utf8'), headers(legacy))).toEqual(JSON.parse(body.toString('utf8')));
  });
  it('mints secrets that both schemes take as they are', () => {
    const secret = mintSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(standardWebhooksKey(secret)).toHaveLength(32);
    expect(new Webhook(secret).verify(body.toString('utf8'), headers(secret))).toBeTruthy();
  });
});

it('sends the payload fields in the documented order', () => {
  const payload = { data: { a: 1 }, apiVersion: 'v1', projectId: 'p', env: 'sandbox', created: 5, type: 'webhook.test', object: 'event', id: 'evt_1' } as const;
  expect(eventBody(payload).toString('utf8')).toBe('{"id":"evt_1","object":"event","type":"webhook.test","created":5,"env":"sandbox","projectId":"p","apiVersion":"v1","data":{"a":1}}');
});

describe('queueRetryDelaySeconds', () => {
  it('is the delivery queue’s backoff: doubling from 30 s up to 4 h, the 25 attempts inside 3 days', () => {
    expect([1, 2, 3, 4].map((n) => queueRetryDelaySeconds(n))).toEqual([30, 60, 120, 240]);
    expect([9, 10, 24].map((n) => queueRetryDelaySeconds(n))).toEqual([7680, 14400, 14400]);
    const lastAttemptAt = Array.from({ length: MAX_DELIVERY_ATTEMPTS - 1 }, (_, i) => queueRetryDelaySeconds(i + 1)).reduce((a, b) => a + b, 0);
    expect(lastAttemptAt).toBeLessThan(3 * 24 * 3600);
  });
});

it('runs at most each queue’s maxConcurrentDispatches at once in process (10 webhook deliveries, 2 of the other queues)', async () => {
  const peak = async (queue: QueueName): Promise<number> => {
    const tasks = new InProcessTaskQueue();
    let running = 0;
    let highest = 0;
    const release: (() => void)[] = [];
    tasks.attach(async () => {
      running += 1;
      highest = Math.max(highest, running);
      await new Promise<void>((resolve) => release.push(resolve));
      running -= 1;
    });
    for (let i = 0; i < 15; i += 1) await tasks.enqueue(queue, {}, { id: `t${i}` });
    // Release a task only once as many run as the slots allow; the gate never lets more in than that.
    const slots = QUEUE_CONFIGS[queue].rateLimits.maxConcurrentDispatches;
    for (let done = 0; done < 15; done += 1) {
      while (release.length < Math.min(slots, 15 - done)) await new Promise((resolve) => setTimeout(resolve, 5));
      release.shift()!();
    }
    await tasks.drain();
    return highest;
  };
  expect(await peak('webhookDelivery')).toBe(QUEUE_CONFIGS.webhookDelivery.rateLimits.maxConcurrentDispatches);
  expect(await peak('erasure')).toBe(QUEUE_CONFIGS.erasure.rateLimits.maxConcurrentDispatches);
  expect([QUEUE_CONFIGS.webhookDelivery.rateLimits.maxConcurrentDispatches, QUEUE_CONFIGS.erasure.rateLimits.maxConcurrentDispatches]).toEqual([10, 2]);
});

describe('queue retry policies', () => {
  it('keep the erasure and identity-resolution backoff (10 s doubling to 300 s, 5 attempts)', () => {
    expect(RETRY_POLICIES.erasure).toBe(RETRY_POLICY);
    expect(RETRY_POLICIES.identityResolution).toBe(RETRY_POLICY);
    expect([2, 3, 4, 5, 6, 7].map((n) => policyBackoffSeconds(RETRY_POLICY, n))).toEqual([10, 20, 40, 80, 160, 300]);
  });
  it('retry a failed delivery 24 times over at most 3 days, doubling 9 times from 30 s, capped at 4 h', () => {
    const policy = RETRY_POLICIES.webhookDelivery;
    expect(policy).toMatchObject({ maxAttempts: 25, maxRetrySeconds: 3 * 24 * 3600 });
    expect([2, 3, 8, 10, 11, 20].map((n) => policyBackoffSeconds(policy, n))).toEqual([30, 60, 1920, 7680, 14400, 14400]);
    expect(policyBackoffSeconds({ ...policy, maxBackoffSeconds: 100_000, maxDoublings: 7 }, 10)).toBe(3840 * 2); // linear after the doublings
  });
  it('reach every deployed task function as its Cloud Tasks retryConfig and rateLimits (one declaration)', () => {
    const functionNames: Record<QueueName, string> = { erasure: 'erasureTask', identityResolution: 'identityResolutionTask', webhookFanout: 'webhookFanoutTask', webhookDelivery: 'webhookDeliveryTask' };
    for (const queue of QUEUE_NAMES) {
      const task = requireDeployedEntry()[functionNames[queue]] as { __endpoint: { taskQueueTrigger: { retryConfig: Record<string, unknown>; rateLimits: Record<string, unknown> } } };
      expect(task.__endpoint.taskQueueTrigger.retryConfig).toMatchObject({ ...QUEUE_CONFIGS[queue].retryConfig });
      expect(task.__endpoint.taskQueueTrigger.rateLimits).toMatchObject({ ...QUEUE_CONFIGS[queue].rateLimits });
    }
    expect(requireDeployedEntry().webhookDeliveryTask).toBeDefined();
  });
});

it('recognises a delivery task payload and refuses anything else', () => {
  const good = { projectId: 'proj_1', env: 'test', eventId: 'evt_1', endpointId: 'whep_1' };
  expect(parseDeliveryTask(good)).toEqual(good);
  expect(parseDeliveryTask({ ...good, replay: 'abc', attempt: 3 })).toEqual({ ...good, replay: 'abc', attempt: 3 });
  for (const bad of [{ ...good, env: 'sandbox' }, { ...good, projectId: '../x' }, { ...good, attempt: 0 }, { ...good, attempt: '2' }, { ...good, replay: 'a/b' }, { ...good, eventId: undefined }]) {
    expect(parseDeliveryTask(bad as Record<string, unknown>)).toBeNull();
  }
});

describe("the README's verification snippet", () => {
  const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Receiving webhooks'));
  const code = /```js\n([\s\S]*?)```/.exec(section)![1];
  type Verify = (rawBody: Buffer | string, header: string, secret: string) => { id: string };
  const verify = runInNewContext(`${code}; verifyTesseraWebhook`, { require: (name: string) => (name === 'node:crypto' ? crypto : undefined), Buffer, Date, Math, Number, String, JSON, Error }) as Verify;
  const body = Buffer.from('{"id":"evt_snippet","object":"event"}', 'utf8');
  const now = Math.floor(Date.now() / 1000);

  it('verifies with either secret during a grace, on a Buffer or a string body', () => {
    const header = signatureHeader(['whsec_new', 'whsec_old'], now, body);
    expect(verify(body, header, 'whsec_new').id).toBe('evt_snippet');
    expect(verify(body.toString('utf8'), header, 'whsec_old').id).toBe('evt_snippet');
  });
  it('refuses a wrong secret, a changed body, an old timestamp and a malformed header', () => {
    expect(() => verify(body, signatureHeader(['whsec_new'], now, body), 'whsec_other')).toThrow('no signature matches');
    expect(() => verify(Buffer.from('{"id":"evt_other"}'), signatureHeader(['whsec_new'], now, body), 'whsec_new')).toThrow('no signature matches');
    expect(() => verify(body, signatureHeader(['whsec_new'], now - 301, body), 'whsec_new')).toThrow('tolerance');
    expect(() => verify(body, 'v1=abc', 'whsec_new')).toThrow('malformed');
  });
});
