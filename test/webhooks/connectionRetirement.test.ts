/**
 * The bound on kept webhook connections (webhooks/connections.ts): an agent the bound pushes out
 * closes its idle connections at once and each busy one as its attempt ends, so endpoints beyond
 * the bound cannot keep connections open; an attempt in flight on it still gets its answer.
 */
import { createServer, request, type Agent, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DestinationConnections } from '../../functions/src/webhooks/connections';

/** A receiver that counts the connections it accepted and saw closed, and answers `/slow` when told. */
class Receiver {
  opened = 0;
  closed = 0;
  private releaseSlow: (() => void) | null = null;
  private readonly closedWaiters: { count: number; resolve: () => void }[] = [];

  constructor(private readonly server: Server) {
    server.on('connection', (socket) => {
      this.opened += 1;
      socket.on('close', () => {
        this.closed += 1;
        for (const waiter of this.closedWaiters.filter((w) => this.closed >= w.count)) waiter.resolve();
      });
    });
    server.on('request', (req, res) => {
      req.resume();
      if (req.url === '/slow') this.releaseSlow = () => res.writeHead(200).end('slow');
      else res.writeHead(200).end('ok');
    });
  }

  static async start(): Promise<Receiver> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new Receiver(server);
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  answerSlow(): void {
    const release = this.releaseSlow;
    this.releaseSlow = null;
    release?.();
  }

  untilClosed(count: number): Promise<void> {
    return this.closed >= count ? Promise.resolve() : new Promise((resolve) => this.closedWaiters.push({ count, resolve }));
  }

  async stop(): Promise<void> {
    this.answerSlow(); // a request still waiting must not fail after its test ended
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function get(agent: Agent, port: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });
}

const freeSocketCount = (agent: Agent) => Object.values(agent.freeSockets).reduce((n, sockets) => n + (sockets?.length ?? 0), 0);
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('kept webhook connections past the bound', () => {
  let receiver: Receiver;
  beforeEach(async () => (receiver = await Receiver.start()));
  afterEach(() => receiver.stop());

  it('keeps a connection while its agent is within the bound', async () => {
    const connections = new DestinationConnections(2);
    const url = new URL(`http://127.0.0.1:${receiver.port}/`);
    const agent = connections.agentFor('whep_a', url, '127.0.0.1');
    await get(agent, receiver.port, '/');
    await nextTurn();
    connections.agentFor('whep_b', url, '127.0.0.1');
    await get(agent, receiver.port, '/');
    expect([receiver.opened, receiver.closed, freeSocketCount(agent)]).toEqual([1, 0, 1]);
  });

  it('closes the evicted agent’s idle connection at once and its busy one once answered', async () => {
    const connections = new DestinationConnections(1);
    const url = new URL(`http://127.0.0.1:${receiver.port}/`);
    const evicted = connections.agentFor('whep_a', url, '127.0.0.1');
    expect(await get(evicted, receiver.port, '/')).toBe('ok');
    await nextTurn();
    expect(freeSocketCount(evicted)).toBe(1);

    const inFlight = get(evicted, receiver.port, '/slow'); // takes the idle connection
    const second = get(evicted, receiver.port, '/'); // opens a second one, which goes idle
    expect(await second).toBe('ok');
    await nextTurn();
    expect([receiver.opened, freeSocketCount(evicted)]).toEqual([2, 1]);

    connections.agentFor('whep_b', url, '127.0.0.1'); // the bound pushes whep_a's agent out
    await receiver.untilClosed(1);
    expect(freeSocketCount(evicted)).toBe(0);

    receiver.answerSlow();
    expect(await inFlight).toBe('slow'); // the attempt in flight was not cut
    await receiver.untilClosed(2);
    expect(freeSocketCount(evicted)).toBe(0);
  });
});
