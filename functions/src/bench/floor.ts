import { createServer, type Server } from 'node:http';

/** The floor: a bare Node HTTP server answering a fixed JSON body, measured in the same run. */
export async function startFloorServer(): Promise<{ server: Server; url: string }> {
  const body = JSON.stringify({ status: 'ok', service: 'floor', timestamp: 0, region: 'local' });
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { server, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` };
}
