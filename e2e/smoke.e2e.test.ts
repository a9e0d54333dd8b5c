/**
 * The post-deploy smoke test (`npm run smoke`, docs/deploying.md) passes against the suite's
 * Hosting, as it must against a fresh deploy, and fails on a key the deployment does not know.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { suite, WEB_TEST_SECRET } from './support/suite';

const smoke = (...args: string[]) => spawnSync(process.execPath, [join(__dirname, '..', 'tools', 'smoke.mjs'), ...args], { encoding: 'utf8', timeout: 120_000 });

it('passes every check through Hosting with a known secret key', () => {
  const result = smoke(suite().running.baseUrl, '--secret-key', WEB_TEST_SECRET);
  expect(result.stdout).toContain('smoke test passed (5 checks)');
  expect(result.status).toBe(0);
});

it('fails, naming the check, for a key that this deployment does not know', () => {
  const result = smoke(suite().running.baseUrl, '--secret-key', 'cd_sk_live_notAKeyOfThisDeployment0000000000');
  expect(result.stdout).toMatch(/FAIL a secret key reads through the API.*401/);
  expect(result.status).toBe(1);
});
