/**
 * Guarantee: the committed OpenAPI document (docs/openapi.json, held equal to the generated one
 * by openapi.test.ts) lints clean with a maintained linter, Redocly CLI, under redocly.yaml's
 * ruleset (recommended, warnings as errors). Offline: no telemetry, no update check, no remote
 * reference (the document has none).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = join(__dirname, '..', '..');

it('lints clean with Redocly CLI (recommended-strict)', async () => {
  const redocly = join(root, 'node_modules', '.bin', 'redocly');
  const { stdout, stderr } = await run(redocly, ['lint', 'docs/openapi.json', '--format=stylish'], {
    cwd: root,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
  }).catch((err: { stdout?: string; stderr?: string }) => {
    throw new Error(`redocly lint failed:\n${err.stdout ?? ''}\n${err.stderr ?? ''}`);
  });
  expect(`${stdout}\n${stderr}`).toMatch(/valid/i);
  expect(`${stdout}\n${stderr}`).not.toMatch(/warning/i);
}, 60_000);
