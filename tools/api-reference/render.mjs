// Renders docs/openapi.json into a static reference page, hosting-public/reference/ (served by
// Firebase Hosting and by `npm start`): one HTML file and its stylesheet, no script, nothing
// fetched at run time. Run by `npm run build:dashboard`.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderReference } from './page.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const out = join(root, 'hosting-public', 'reference');
const document = JSON.parse(readFileSync(join(root, 'docs', 'openapi.json'), 'utf8'));

mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'index.html'), renderReference(document));
copyFileSync(join(here, 'reference.css'), join(out, 'reference.css'));
console.log(`API reference built: hosting-public/reference/index.html (${Object.keys(document.paths).length} paths)`);
