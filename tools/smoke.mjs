#!/usr/bin/env node
// Post-deploy smoke test: `npm run smoke -- https://PROJECT.web.app [--secret-key cd_sk_live_…]`.
// Checks, through Hosting, that each layer a deploy can break answers: the rewrites to the
// functions (healthz, the dashboard API), Firestore and key lookup (a secret key's
// authenticated read, when given), the dashboard page with its security headers, and Hosting's
// Firebase config for sign-in. Read-only: it changes nothing. Exit code 1 when a check fails.
// docs/deploying.md explains each failure; the e2e tests run it against the emulator suite.
import { parseArgs } from 'node:util';

const { positionals, values } = parseArgs({ allowPositionals: true, options: { 'secret-key': { type: 'string' } } });
const base = positionals[0]?.replace(/\/+$/, '');
if (!base || !/^https?:\/\//.test(base)) {
  console.error('usage: npm run smoke -- https://PROJECT.web.app [--secret-key cd_sk_live_…]');
  process.exit(2);
}

const checks = [
  ['healthz through Hosting → platformApi', async () => {
    const res = await fetch(`${base}/v1/healthz`);
    const body = await res.json();
    if (res.status !== 200 || body.status !== 'ok') throw new Error(`${res.status} ${JSON.stringify(body)}`);
    return `region ${body.region}`;
  }],
  ['dashboard API through Hosting → dashboardApi (signed out: 401)', async () => {
    const res = await fetch(`${base}/v1/dashboard-api/session`);
    const body = await res.json();
    if (res.status !== 401 || body.error?.code !== 'operator_unauthenticated') throw new Error(`${res.status} ${JSON.stringify(body)}`);
    return 'operator_unauthenticated';
  }],
  ['dashboard page with its Content-Security-Policy', async () => {
    const res = await fetch(`${base}/dashboard/`);
    const csp = res.headers.get('content-security-policy') ?? '';
    const html = await res.text();
    if (res.status !== 200 || !html.includes('app.js')) throw new Error(`${res.status}: not the dashboard page (was npm run build:dashboard run by Hosting's predeploy?)`);
    if (!csp.includes("script-src 'self'")) throw new Error('no Content-Security-Policy header (firebase.json hosting.headers)');
    return 'served';
  }],
  ['Firebase web config for sign-in (/__/firebase/init.json)', async () => {
    const res = await fetch(`${base}/__/firebase/init.json`);
    if (res.status !== 200) throw new Error(`${res.status}: Hosting serves it only on the project's own Hosting site`);
    const body = await res.json();
    if (!body.apiKey) throw new Error('no apiKey in it');
    return `project ${body.projectId}`;
  }],
];
if (values['secret-key']) {
  checks.push(['a secret key reads through the API (key lookup, Firestore)', async () => {
    const res = await fetch(`${base}/v1/server/audit/srv_smoke_test_missing`, { headers: { Authorization: `Bearer ${values['secret-key']}` } });
    const body = await res.json();
    // A well-formed unknown audit id is a 400 only after the key was found and the store read.
    if (res.status === 401) throw new Error(`401 ${body.error?.code}: the key is not known to this deployment`);
    if (res.status !== 400) throw new Error(`${res.status} ${JSON.stringify(body)}`);
    return `${body.error?.code} for an unknown audit id, as expected`;
  }]);
}

let failed = 0;
for (const [name, check] of checks) {
  try {
    console.log(`ok   ${name}: ${await check()}`);
  } catch (err) {
    failed += 1;
    console.log(`FAIL ${name}: ${err instanceof Error ? err.message : err}`);
  }
}
console.log(failed === 0 ? `smoke test passed (${checks.length} checks)` : `smoke test failed: ${failed} of ${checks.length} checks`);
process.exit(failed === 0 ? 0 : 1);
