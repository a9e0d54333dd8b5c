/**
 * Guarantees of docs/webhooks.md: every event type a receiver can get is documented with an
 * example payload in the sent envelope (field order as sent), and the dependency-free Python
 * verifier accepts a real delivery (signed by the service, received over HTTP) and refuses a
 * changed body or another secret.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE } from '../../functions/src/webhooks/model';
import { addEndpoint, enqueueDelivery, newProject, Receiver, recordEvent, secretsFile, steppedDeps } from './deliverySupport';

const doc = readFileSync(join(__dirname, '..', '..', 'docs', 'webhooks.md'), 'utf8');
const ENVELOPE = ['id', 'object', 'type', 'created', 'env', 'projectId', 'apiVersion', 'data'];

describe('event types', () => {
  it.each([...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE])('documents %s with an example payload', (type) => {
    const section = doc.slice(doc.indexOf(`### ${type}\n`));
    expect(section.length).toBeLessThan(doc.length);
    const example = JSON.parse(/```json\n([\s\S]*?)```/.exec(section)![1]);
    expect(Object.keys(example)).toEqual(ENVELOPE);
    expect(example).toMatchObject({ object: 'event', type, apiVersion: 'v1' });
    expect(example.id).toMatch(/^evt_/);
    if (type.startsWith('entitlement.')) {
      expect(Object.keys(example.data)).toEqual(['serviceCustomerId', 'sequence', 'entitlement', 'previous', 'cause']);
      expect(Object.keys(example.data.entitlement)).toEqual(['object', 'key', 'isActive', 'validUntil', 'source', 'updatedAt']);
    }
  });
});

describe('the Python verifier sample', () => {
  const python = /```python\n([\s\S]*?)```/.exec(doc)![1];
  const verify = (body: Buffer, headers: Record<string, string>, secret: string): { ok: boolean; output: string } => {
    const script = `${python}\nimport sys\nargs = json.loads(sys.stdin.read())\ntry:\n    print(json.dumps(verify_tessera_webhook(base64.b64decode(args["body"]), args["headers"], args["secret"])))\nexcept ValueError as e:\n    print("refused: " + str(e))\n`;
    const output = execFileSync('python3', ['-c', script], { input: JSON.stringify({ body: body.toString('base64'), headers, secret }) }).toString('utf8').trim();
    return { ok: !output.startsWith('refused'), output };
  };

  it('accepts a real delivery, and refuses a changed body or another secret', async () => {
    const receiver = await Receiver.start();
    try {
      const file = secretsFile();
      const world = steppedDeps({ file });
      const projectId = await newProject(world.deps);
      const { endpointId, secret } = await addEndpoint(world.deps, file, projectId, 'test', receiver.url());
      const event = await recordEvent(world.deps, projectId, 'test', 'entitlement.granted', { serviceCustomerId: 'cdcust_py', sequence: 1 });
      await enqueueDelivery(world.queue, projectId, 'test', event.eventId, endpointId);
      await world.queue.runNext();
      const [{ headers, body }] = receiver.requests;
      const sent = { 'webhook-id': headers['webhook-id'] as string, 'webhook-timestamp': headers['webhook-timestamp'] as string, 'webhook-signature': headers['webhook-signature'] as string };
      const accepted = verify(body, sent, secret);
      expect(accepted.ok).toBe(true);
      expect(JSON.parse(accepted.output)).toEqual(event.payload);
      expect(verify(Buffer.from(body.toString('utf8').replace('cdcust_py', 'cdcust_xx')), sent, secret)).toEqual({ ok: false, output: 'refused: no signature matches' });
      expect(verify(body, sent, `whsec_${Buffer.alloc(32, 1).toString('base64')}`).ok).toBe(false);
      // A secret minted as base64url before both schemes were sent verifies as it is here too.
      const legacy = `whsec_${Buffer.from(secret.slice(6), 'base64').toString('base64url')}`;
      expect(verify(body, sent, legacy).ok).toBe(true);
    } finally {
      await receiver.close();
    }
  });
});
