import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A tiny HTTP server on 127.0.0.1 standing in for a rail's API in tests. */
export interface FakeServer {
  port: number;
  url: string;
  requests: { method: string; path: string; headers: IncomingMessage['headers'] }[];
  close(): Promise<void>;
}

export type FakeHandler = (req: IncomingMessage, path: string) => { status: number; body: unknown };

export async function startFakeServer(handler: FakeHandler): Promise<FakeServer> {
  const requests: FakeServer['requests'] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    requests.push({ method: req.method ?? 'GET', path, headers: req.headers });
    req.resume();
    req.on('end', () => {
      const { status, body } = handler(req, path);
      res.writeHead(status, { 'Content-Type': 'application/json', Connection: 'close' });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
