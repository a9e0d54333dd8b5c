import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { GROUPS } from '../groups';
import { buildOpenApiDocument } from './document';
import { FUNCTIONS_PACKAGE_FILE, OPENAPI_FILE } from './file';

/**
 * `node functions/lib/app/openapi/write.js [file…]`: generates the OpenAPI document from the
 * route table and writes it to each file given (default: where the platform group serves it
 * from, functions/lib/openapi.json). The build runs it; `npm run openapi` also refreshes the
 * committed copy in docs/.
 */
export function openApiText(): string {
  const { version } = JSON.parse(readFileSync(FUNCTIONS_PACKAGE_FILE, 'utf8')) as { version: string };
  return `${JSON.stringify(buildOpenApiDocument(GROUPS, version), null, 2)}\n`;
}

if (require.main === module) {
  const text = openApiText();
  const targets = process.argv.length > 2 ? process.argv.slice(2).map((file) => resolve(file)) : [OPENAPI_FILE];
  for (const file of targets) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
}
