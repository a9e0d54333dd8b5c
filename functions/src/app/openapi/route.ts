import { readFile } from 'node:fs/promises';
import { route } from '../../http/route';
import { OPENAPI_FILE } from './file';

let document: Promise<unknown> | undefined;

/** The file the build generated, read on this route's first request only (no group's cold start pays for it). */
function loadDocument(): Promise<unknown> {
  document ??= readFile(OPENAPI_FILE, 'utf8').then(
    (text) => JSON.parse(text) as unknown,
    (err: unknown) => {
      document = undefined;
      throw err;
    },
  );
  return document;
}

/** `GET /v1/openapi.json`: the OpenAPI 3.1 description of this API (generated at build time, document.ts). */
export const openApiRoute = route({
  method: 'GET',
  path: '/v1/openapi.json',
  key: 'none',
  cacheControl: 'public, max-age=300',
  handler: async () => ({ body: await loadDocument() }),
});
