/**
 * Guarantees of `npm start`'s shutdown (issue 19 §6), against its own entry point: Ctrl-C
 * (SIGINT) stops the stack while a webhook retry waits for its backoff (it used to wait in the
 * queue's drain for the retry, and then for the next: hours), and the retry scheduled before
 * the stop runs after the next start.
 */
import { LOCAL_TASK_COLLECTION, type PendingTask } from '../../functions/src/tasks/pendingTasks';
import { db } from '../../functions/src/store/firestore';
import { startLocalStack, type LocalStack } from '../browser/stack';
import { closedPort, Receiver } from '../webhooks/deliverySupport';

jest.setTimeout(120_000);

const PROJECT = 'proj_demo';
let stack: LocalStack | null = null;
afterAll(async () => {
  await stack?.stop();
});

async function signIn(current: LocalStack): Promise<Record<string, string>> {
  const loginToken = /#login=(\S+)$/.exec(current.loginLink)![1];
  const res = await fetch(`${current.baseUrl}/v1/dashboard-api/session/local`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ loginToken }) });
  const { data } = (await res.json()) as { data: { sessionToken: string } };
  return { Authorization: `Bearer ${data.sessionToken}`, 'Content-Type': 'application/json' };
}

async function dashboard(current: LocalStack, session: Record<string, string>, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${current.baseUrl}/v1/dashboard-api/projects/${PROJECT}/test${path}`, { method, headers: session, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = (await res.json()) as any;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

/** Polls the endpoint's deliveries until `done` holds for the first one. */
async function deliveryWhen(current: LocalStack, session: Record<string, string>, endpointId: string, done: (d: any) => boolean): Promise<any> {
  for (;;) {
    const [delivery] = await dashboard(current, session, 'GET', `/webhooks/${endpointId}/deliveries`);
    if (delivery && done(delivery)) return delivery;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

it('stops on SIGINT while a webhook retry waits, and runs that retry after the next start', async () => {
  const port = await closedPort();
  stack = await startLocalStack();
  let session = await signIn(stack);
  const { endpoint } = await dashboard(stack, session, 'POST', '/webhooks', { url: `http://127.0.0.1:${port}/hooks` });
  const { endpointId } = endpoint;
  try {
    await dashboard(stack, session, 'POST', `/webhooks/${endpointId}/test`);
    const failed = await deliveryWhen(stack, session, endpointId, (d) => d.attemptCount === 1 && d.inFlight === null);
    expect(failed).toMatchObject({ state: 'pending', attempts: [expect.objectContaining({ error: 'connection' })] });
    expect(failed.nextRetryAt).toBeGreaterThan(Date.now());

    await stack.stop('SIGINT'); // the retry waits ~30 s: the stop does not
    stack = null;
    const kept = (await db().collection(LOCAL_TASK_COLLECTION).get()).docs.map((d) => d.data() as PendingTask).filter((t) => t.payload.endpointId === endpointId);
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({ queue: 'webhookDelivery', id: failed.deliveryId, attempt: 2 });

    // The receiver comes up; the stack starts again and runs the retry at its time (the queue's 30 s backoff).
    const receiver = await Receiver.start(port);
    try {
      stack = await startLocalStack();
      session = await signIn(stack);
      const delivered = await deliveryWhen(stack, session, endpointId, (d) => d.state !== 'pending');
      expect(delivered).toMatchObject({ state: 'delivered', attemptCount: 2 });
      expect(receiver.requests.map((r) => r.headers['service-webhook-attempt'])).toEqual(['2']);
      expect((await db().collection(LOCAL_TASK_COLLECTION).get()).docs.filter((d) => d.get('payload.endpointId') === endpointId)).toEqual([]);
    } finally {
      await receiver.close();
    }
  } finally {
    if (stack) await dashboard(stack, session, 'DELETE', `/webhooks/${endpointId}`);
  }
});
