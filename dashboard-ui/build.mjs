// Builds the dashboard page into hosting-public/dashboard/ (served by Firebase Hosting and by
// `npm start`): one minified ES module bundle, its CSS, and index.html. No CDN: everything the
// page runs is in these files. Prints the gzipped size of the JavaScript (budget: 200 KB).
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', 'hosting-public', 'dashboard');
mkdirSync(out, { recursive: true });

const result = await build({
  entryPoints: [join(here, 'src', 'main.tsx')],
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['chrome115', 'firefox115', 'safari16'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outfile: join(out, 'app.js'),
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
});
// The page imports the server's wire types with `import type` only: not one server module may be bundled.
const serverInputs = Object.keys(result.metafile.inputs).filter((input) => /(^|\/)functions\//.test(input));
if (serverInputs.length > 0) {
  console.error(`dashboard bundle includes server modules (use \`import type\`): ${serverInputs.join(', ')}`);
  process.exit(1);
}
const uplotCss = readFileSync(join(here, '..', 'node_modules', 'uplot', 'dist', 'uPlot.min.css'), 'utf8');
writeFileSync(join(out, 'app.css'), `${uplotCss}\n${readFileSync(join(here, 'styles.css'), 'utf8')}`);
copyFileSync(join(here, 'index.html'), join(out, 'index.html'));

const gzipped = gzipSync(readFileSync(join(out, 'app.js'))).length;
const BUDGET = 200 * 1024;
console.log(`dashboard built: hosting-public/dashboard/app.js ${(gzipped / 1024).toFixed(1)} KB gzipped (budget ${BUDGET / 1024} KB)`);
if (gzipped > BUDGET) {
  console.error('dashboard bundle is over its 200 KB gzipped budget');
  process.exit(1);
}
