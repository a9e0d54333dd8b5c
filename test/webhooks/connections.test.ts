/**
 * Kept-alive connections to webhook destinations (webhooks/connections.ts, sender.ts): a healthy
 * receiver's next delivery goes over the connection its last one used, and keeping connections
 * weakens nothing — each attempt still resolves and checks its destination and connects to the
 * address it checked (a host that now resolves elsewhere gets a connection there; one that now
 * resolves to a refused address is refused, the kept connection unused), no connection carries
 * two endpoints' deliveries, a kept connection the receiver closed is replaced within the
 * attempt, and a connection opened before the claim commits carries nothing unless it commits.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { EnvScope } from '../../functions/src/store/scope';
import { deliveryTaskId } from '../../functions/src/webhooks/eventModel';
import { webhookEventRef } from '../../functions/src/webhooks/outbox';
import { openRequest } from '../../functions/src/webhooks/sender';
import { addEndpoint, deliveryRecord, enqueueDelivery, newProject, recordEvent, secretsFile, steppedDeps, type DeliveryWorld } from './deliverySupport';

/** A receiver on `host` that numbers its connections and says which connection carried each request. */
class ConnectionCountingReceiver {
  readonly requests: { connection: number; path: string; headers: IncomingHttpHeaders }[] = [];
  connections = 0;
  /** The receiver closes a kept connection as the second request on it arrives, without answering. */
  dropSecondRequestOnAConnection = false;
  private readonly numbers = new WeakMap<Socket, { n: number; requests: number }>();
  private constructor(private readonly server: Server) {}

  static async start(host: string, port = 0): Promise<ConnectionCountingReceiver> {
    const server = createServer();
    const receiver = new ConnectionCountingReceiver(server);
    server.on('connection', (socket: Socket) => receiver.numbers.set(socket, { n: (receiver.connections += 1), requests: 0 }));
    server.on('request', (req, res) => {
      const connection = receiver.numbers.get(req.socket)!;
      connection.requests += 1;
      if (receiver.dropSecondRequestOnAConnection && connection.requests === 2) {
        req.socket.destroy();
        return;
      }
      req.resume();
      req.on('end', () => {
        receiver.requests.push({ connection: connection.n, path: req.url ?? '', headers: req.headers });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(port, host, resolve));
    return receiver;
  }

  /** The next connection the receiver accepts. */
  nextConnection(): Promise<Socket> {
    return new Promise((resolve) => this.server.once('connection', resolve));
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const file = secretsFile();
const receivers: ConnectionCountingReceiver[] = [];
const started = async (host: string, port?: number) => {
  const receiver = await ConnectionCountingReceiver.start(host, port);
  receivers.push(receiver);
  return receiver;
};
afterAll(() => Promise.all(receivers.map((r) => r.close())));

/** One delivery task of a new event to the endpoint, run to its end; returns the recorded attempt. */
async function deliverOnce(world: DeliveryWorld, projectId: string, endpointId: string, sequence: number) {
  const event = await recordEvent(world.deps, projectId, 'test', 'entitlement.granted', { sequence });
  await enqueueDelivery(world.queue, projectId, 'test', event.eventId, endpointId);
  await world.queue.runNext();
  const record = await deliveryRecord(world.deps, projectId, 'test', deliveryTaskId(event.eventId, endpointId));
  return { eventId: event.eventId, attempt: record!.attempts.at(-1)! };
}

it("sends a healthy receiver's next deliveries over the connection the first one opened", async () => {
  const world = steppedDeps({ file });
  const receiver = await started('127.0.0.1');
  const projectId = await newProject(world.deps);
  const { endpointId } = await addEndpoint(world.deps, file, projectId, 'test', `http://127.0.0.1:${receiver.port}/kept`);
  for (let sequence = 1; sequence <= 3; sequence += 1) expect((await deliverOnce(world, projectId, endpointId, sequence)).attempt.statusCode).toBe(200);
  expect(receiver.requests.map((r) => r.connection)).toEqual([1, 1, 1]);
  expect(receiver.connections).toBe(1);
});

it("makes the fan-out's first attempts of consecutive events over each endpoint's kept connection", async () => {
  const world = steppedDeps({ file });
  const [a, b] = [await started('127.0.0.1'), await started('127.0.0.1')];
  const projectId = await newProject(world.deps);
  for (const receiver of [a, b]) await addEndpoint(world.deps, file, projectId, 'test', `http://127.0.0.1:${receiver.port}/fanout`);
  for (let sequence = 1; sequence <= 3; sequence += 1) {
    const event = await recordEvent(world.deps, projectId, 'test', 'entitlement.granted', { sequence });
    await webhookEventRef(new EnvScope(world.deps.db, projectId, 'test'), event.eventId).update({ fannedOutAt: null });
    await world.queue.enqueue('webhookFanout', { projectId, env: 'test', eventId: event.eventId }, { id: event.eventId });
    await world.queue.runNext();
  }
  expect(world.queue.queued).toHaveLength(0); // every first attempt delivered: no delivery task
  for (const receiver of [a, b]) {
    expect(receiver.requests.map((r) => r.connection)).toEqual([1, 1, 1]);
    expect(receiver.connections).toBe(1);
  }
});

it('connects to the address the check approved this time: a host that now resolves elsewhere does not get the kept connection', async () => {
  const first = await started('127.0.0.1');
  const second = await started('127.0.0.2', first.port);
  let answer = '127.0.0.1';
  const lookup = async () => [{ address: answer, family: 4 }];
  const world = steppedDeps({ file, delivery: { lookup } });
  const projectId = await newProject(world.deps);
  const { endpointId } = await addEndpoint(world.deps, file, projectId, 'test', `http://hooks.tessera.test:${first.port}/moved`, { lookup });
  expect((await deliverOnce(world, projectId, endpointId, 1)).attempt.statusCode).toBe(200);
  answer = '127.0.0.2'; // the name moved: the connection kept to 127.0.0.1 must not carry the next delivery
  const moved = await deliverOnce(world, projectId, endpointId, 2);
  expect(moved.attempt.statusCode).toBe(200);
  expect(first.requests).toHaveLength(1);
  expect(second.requests).toHaveLength(1);
  expect(second.requests[0].headers['service-webhook-id']).toBe(moved.eventId);
  expect(second.requests[0].headers.host).toBe(`hooks.tessera.test:${first.port}`);
});

it('refuses a host that now resolves to a refused address, although a connection to its old address is kept', async () => {
  const receiver = await started('127.0.0.1');
  let answer = ['127.0.0.1'];
  const lookup = async () => answer.map((address) => ({ address, family: 4 }));
  const world = steppedDeps({ file, delivery: { lookup } });
  const projectId = await newProject(world.deps);
  const { endpointId } = await addEndpoint(world.deps, file, projectId, 'test', `http://hooks.tessera.test:${receiver.port}/rebound`, { lookup });
  expect((await deliverOnce(world, projectId, endpointId, 1)).attempt.statusCode).toBe(200);
  answer = ['127.0.0.1', '10.0.0.7']; // one private answer refuses the whole host
  const refused = await deliverOnce(world, projectId, endpointId, 2);
  expect(refused.attempt).toMatchObject({ error: 'destination_refused', statusCode: null });
  expect(refused.attempt.errorDetail).not.toContain('10.0.0.7');
  expect(receiver.requests).toHaveLength(1);
});

it("never carries two endpoints' deliveries on one connection, even to the same URL (another project's endpoint included)", async () => {
  const receiver = await started('127.0.0.1');
  const world = steppedDeps({ file });
  const url = `http://127.0.0.1:${receiver.port}/shared`;
  const mine = await newProject(world.deps);
  const theirs = await newProject(world.deps);
  const { endpointId: myEndpoint } = await addEndpoint(world.deps, file, mine, 'test', url);
  const { endpointId: theirEndpoint } = await addEndpoint(world.deps, file, theirs, 'test', url);
  const sent = { [mine]: [] as string[], [theirs]: [] as string[] };
  for (const sequence of [1, 2]) {
    sent[mine].push((await deliverOnce(world, mine, myEndpoint, sequence)).eventId);
    sent[theirs].push((await deliverOnce(world, theirs, theirEndpoint, sequence)).eventId);
  }
  const connectionsOf = (projectId: string) => new Set(receiver.requests.filter((r) => sent[projectId].includes(r.headers['service-webhook-id'] as string)).map((r) => r.connection));
  expect(receiver.requests).toHaveLength(4);
  expect(connectionsOf(mine).size).toBe(1);
  expect(connectionsOf(theirs).size).toBe(1);
  expect(connectionsOf(mine)).not.toEqual(connectionsOf(theirs));
});

it('sends the attempt again on a new connection when the receiver closed the kept one as it was taken', async () => {
  const receiver = await started('127.0.0.1');
  const world = steppedDeps({ file });
  const projectId = await newProject(world.deps);
  const { endpointId } = await addEndpoint(world.deps, file, projectId, 'test', `http://127.0.0.1:${receiver.port}/closing`);
  await deliverOnce(world, projectId, endpointId, 1);
  receiver.dropSecondRequestOnAConnection = true;
  const second = await deliverOnce(world, projectId, endpointId, 2);
  expect(second.attempt).toMatchObject({ attempt: 1, statusCode: 200, error: null });
  expect(receiver.requests.map((r) => r.connection)).toEqual([1, 2]);
  expect(receiver.requests[1].headers['service-webhook-id']).toBe(second.eventId);
});

it('writes nothing on a connection opened before a claim that is not made', async () => {
  const receiver = await started('127.0.0.1');
  const url = new URL(`http://127.0.0.1:${receiver.port}/unclaimed`);
  const connected = receiver.nextConnection();
  const pending = openRequest({ url, address: '127.0.0.1', agent: false });
  const socket = await connected;
  const closed = new Promise((resolve) => socket.once('close', resolve));
  pending.abandon();
  await closed;
  expect(receiver.connections).toBe(1);
  expect(receiver.requests).toHaveLength(0);
});
