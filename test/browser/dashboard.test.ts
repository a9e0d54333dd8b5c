/**
 * Guarantees of the dashboard in a real browser (Debian's Chromium, headless, driven by
 * playwright-core) against `npm start`'s stack: the one-time local link signs in; an operator
 * creates an app and its keys (the secret shown once), rotates with a chosen grace, revokes and
 * sees the key-activity list; finds a customer, grants and revokes with a reason and sees the
 * audit entry; erases a customer after its id is typed again; resolves a conflict side by side; opens an error's symbolicated stack; sends a
 * webhook test event and replays the delivery; and the
 * environment switch is always visible, test is marked, and a test view never shows live data.
 * With DASHBOARD_SCREENSHOTS=1 each page is saved under docs/dashboard/ (the README shows them).
 */
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { linkMigratedUser } from '../../functions/src/identity/repository';
import { db } from '../../functions/src/store/firestore';
import { EnvScope } from '../../functions/src/store/scope';
import { launchChromium, startLocalStack, type LocalStack } from './stack';

jest.setTimeout(120_000);

const PROJECT = 'proj_demo';
const IOS = { test: 'cd_pub_test_demoIosOEG7YlH3lZL2X96H5KHcSo1Y', live: 'cd_pub_live_demoIosq7oIX1d2iXf1Glt3K85HTiLy' };
const WEB_TEST_SECRET = 'cd_sk_test_demoWeba8YRuitN1UQGa19ODpwiZ5s4';
const SHOTS = process.env.DASHBOARD_SCREENSHOTS === '1' ? join(__dirname, '..', '..', 'docs', 'dashboard') : null;
const run = Date.now().toString(36);

let stack: LocalStack;
let browser: BrowserContext;
let page: Page;

async function api(path: string, key: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${stack.baseUrl}${path}`, { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const json = (await res.json()) as any;
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}
const identify = (env: 'test' | 'live', body: object) => api('/v1/identify', IOS[env], body, { 'X-Service-Bundle-Id': 'com.example.tessera.demo' });

const go = async (env: 'test' | 'live', path: string) => {
  await page.goto(`${stack.baseUrl}/dashboard/#/${PROJECT}/${env}/${path}`);
};
const shot = async (name: string) => {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
};
const main = () => page.locator('main#main');

beforeAll(async () => {
  stack = await startLocalStack();
  browser = await launchChromium();
  page = await browser.newPage();
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

it('signs in with the local link and lands on the Overview, test mode marked', async () => {
  await page.goto(stack.loginLink);
  await page.getByRole('heading', { name: /Overview/ }).waitFor();
  expect(page.url()).not.toContain('login='); // the link's token leaves the address bar
  await page.getByTestId('test-banner').waitFor();
  expect(await page.getByRole('radio', { name: 'Test' }).isChecked()).toBe(true);
  await go('test', 'overview');
  await main().getByText('apps', { exact: false }).first().waitFor();
});

it('creates an app and its keys, rotates with a grace, revokes, and shows the key activity', async () => {
  await go('test', 'apps');
  const form = page.getByRole('form', { name: 'Create an app' });
  await form.getByLabel('Platform').selectOption('web');
  await form.getByLabel('Name').fill(`Browser web ${run}`);
  await form.getByLabel('Allowed origins').fill('https://browser.example.com');
  await form.getByRole('button', { name: 'Create app' }).click();
  const card = page.locator('article.app', { hasText: `Browser web ${run}` });
  await card.getByRole('button', { name: 'Create test keys' }).click();
  const secret = page.getByTestId('once-secret');
  await secret.waitFor();
  expect(await secret.textContent()).toMatch(/^cd_sk_test_/);
  const firstSecret = (await secret.textContent())!;
  await page.getByRole('button', { name: 'I have stored it' }).click();
  await secret.waitFor({ state: 'detached' });
  expect(await page.content()).not.toContain(firstSecret); // shown once

  const activeSecret = () => card.locator('tr', { has: page.locator('span.state-active') }).filter({ hasText: 'cd_sk_test_' });
  const secretRow = activeSecret();
  await secretRow.getByRole('combobox').selectOption('1h');
  await secretRow.getByRole('button', { name: 'Rotate' }).click();
  await secret.waitFor();
  await page.getByRole('button', { name: 'I have stored it' }).click();
  await card.locator('span.state-grace').waitFor();

  const active = activeSecret();
  await active.getByRole('button', { name: 'Revoke' }).click();
  await active.getByRole('button', { name: /Revoke now/ }).click();
  await card.locator('span.state-revoked').waitFor();
  const activity = card.getByRole('list', { name: /Key activity/ });
  await activity.waitFor();
  const text = await activity.textContent();
  expect(text).toMatch(/revoked secret key/);
  expect(text).toMatch(/rotated secret key/);
  expect(text).toContain('by local-operator@localhost');
  await shot('apps-and-keys');
});

it('finds a customer, grants and revokes with a reason, and shows the audit entry', async () => {
  const { serviceCustomerId } = await identify('test', { userId: `browser-user-${run}`, anonymousId: `browser-phone-${run}`, traits: { plan: 'trial' } });
  await go('test', 'customers');
  await page.getByLabel('Find a customer').fill(`browser-user-${run}`);
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByRole('link', { name: serviceCustomerId }).click();
  await page.getByRole('heading', { name: new RegExp(serviceCustomerId) }).waitFor();

  const grant = page.getByRole('form', { name: 'Grant an entitlement' });
  await grant.getByLabel('Entitlement key').fill('pro');
  await grant.getByLabel('Duration').selectOption('P90D');
  await grant.getByLabel('Reason').fill('Browser test: goodwill after a support ticket');
  await grant.getByRole('button', { name: 'Grant' }).click();
  await grant.getByRole('status').waitFor();
  await page.locator('tr[data-grant]', { hasText: 'active' }).waitFor();
  await shot('customers');

  await grant.getByRole('link', { name: /audit srv_grant_/ }).click();
  const entry = page.getByRole('article', { name: /Audit entry srv_grant_/ });
  await entry.waitFor();
  expect(await entry.textContent()).toContain('entitlement.granted_manually');
  expect(await entry.textContent()).toContain('local-operator@localhost');
  expect(await entry.textContent()).toContain('Browser test: goodwill after a support ticket');
  await shot('audit');

  await page.goBack();
  await page.getByRole('heading', { name: new RegExp(serviceCustomerId) }).waitFor();
  const revoke = page.getByRole('form', { name: 'Revoke pro' });
  await revoke.getByLabel('Reason to revoke pro').fill('granted to the wrong account');
  await revoke.getByRole('button', { name: 'Revoke' }).click();
  const trail = page.getByRole('table', { name: 'Audit entries' });
  await trail.locator('tr', { hasText: 'entitlement.revoked_manually' }).waitFor();
  expect(await trail.locator('tr', { hasText: 'entitlement.revoked_manually' }).textContent()).toContain('granted to the wrong account');

  // The Audit page lists a customer's entries too.
  await go('test', 'audit');
  const byCustomer = page.getByRole('form', { name: 'A customer’s audit entries' });
  await byCustomer.getByLabel('Customer id').fill(serviceCustomerId);
  await byCustomer.getByRole('button', { name: 'Show entries' }).click();
  const entries = page.getByRole('table', { name: 'Audit entries' });
  await entries.locator('tr', { hasText: 'entitlement.revoked_manually' }).waitFor();
  expect(await entries.locator('tr', { hasText: 'entitlement.granted_manually' }).count()).toBe(1);
});

it('erases a customer only once its id is typed again, audited with the operator', async () => {
  const { serviceCustomerId } = await identify('test', { userId: `browser-erase-${run}`, anonymousId: `browser-erase-phone-${run}` });
  await go('test', `customers/${serviceCustomerId}`);
  await page.getByRole('heading', { name: new RegExp(serviceCustomerId) }).waitFor();
  const erase = page.getByRole('form', { name: 'Erase this customer' });
  const button = erase.getByRole('button', { name: 'Erase customer' });
  await erase.getByLabel('Type the customer id to confirm').fill('cdcust_not_this_one');
  expect(await button.isDisabled()).toBe(true);
  await erase.getByLabel('Type the customer id to confirm').fill(serviceCustomerId);
  await button.click();
  // Accepted at once (the erasure task finishes it in the background): identifiers gone, the
  // request audited with the operator, and no grant or erase form offered any more.
  await page.locator('.state-erasure_pending, .state-erased').waitFor();
  await page.getByText('No identifiers.').waitFor();
  const trail = page.getByRole('table', { name: 'Audit entries' });
  expect(await trail.locator('tr', { hasText: 'customer.erasure_requested' }).textContent()).toContain('local-operator@localhost');
  expect(await page.getByRole('form', { name: 'Grant an entitlement' }).count()).toBe(0);
  expect(await page.getByRole('form', { name: 'Erase this customer' }).count()).toBe(0);
});

it('resolves an identity conflict from the side-by-side review', async () => {
  const user = `conflict-user-${run}`;
  const { serviceCustomerId: canonical } = await identify('test', { userId: user, anonymousId: `${user}-phone` });
  const scope = new EnvScope(db(), PROJECT, 'test');
  const { customerId: device } = await linkMigratedUser(scope, [{ kind: 'anonymous', id: `${user}-tablet` }], { email: `old-${run}@example.com`, traits: { plan: 'free' } }, Date.now());
  expect((await identify('test', { userId: user, anonymousId: `${user}-tablet` })).mergePending).toBe(true);

  await go('test', 'conflicts');
  // With the policy off the page says plainly what a self-asserted identify allows.
  expect(await page.getByRole('article', { name: 'Identity settings' }).getByRole('note').textContent()).toContain('it can erase the user');
  const card = page.locator('article.conflict', { hasText: canonical });
  await card.waitFor();
  expect(await card.textContent()).toContain(device);
  await shot('conflicts');
  await card.getByRole('button', { name: `Merge into ${canonical}` }).click();
  await page.getByRole('status').filter({ hasText: 'merged' }).waitFor();
  await card.waitFor({ state: 'detached' });
});

it('opens an error group’s symbolicated stack', async () => {
  const release = `browser-${run}`;
  const map = { version: 3, file: 'app.min.js', sources: ['src/checkout.ts'], names: ['pay'], mappings: 'AAAAA' };
  await api('/v1/releases/sourcemaps', WEB_TEST_SECRET, { release, environment: 'sandbox', files: [{ fileUrl: 'https://cdn.example.com/app.min.js', sourceMap: Buffer.from(JSON.stringify(map)).toString('base64') }] });
  const stack = 'TypeError: card declined\n    at pay (https://cdn.example.com/app.min.js:1:1)';
  await api('/v1/events', IOS.test, { events: [{ eventId: `err-${run}`, name: `checkout_failed_${run}`, level: 'error', anonymousId: `browser-phone-${run}`, properties: { message: 'card declined', stack, release } }] }, { 'X-Service-Bundle-Id': 'com.example.tessera.demo' });

  const group = page.getByRole('link', { name: `checkout_failed_${run}` });
  // Events are stored by a background task shortly after the request: reload until the group shows.
  for (let attempt = 0; attempt < 30 && !(await group.count()); attempt += 1) {
    await go('test', 'overview');
    await go('test', 'errors');
    await page.getByRole('table', { name: 'Error groups' }).or(page.getByText('No error groups in this range')).first().waitFor();
  }
  await group.click();
  const frames = page.getByRole('list', { name: 'Symbolicated stack' });
  await frames.waitFor();
  expect(await frames.textContent()).toContain('src/checkout.ts:1:1');
  await page.getByRole('table', { name: `Source maps of release ${release}` }).getByText('https://cdn.example.com/app.min.js').waitFor();
  await shot('errors');
  // An active subscription for the Overview's charts (granted through the server API).
  const { serviceCustomerId } = await identify('test', { userId: `browser-user-${run}`, anonymousId: `browser-phone-${run}` });
  await api(`/v1/server/customers/${serviceCustomerId}/grant`, WEB_TEST_SECRET, { entitlementKey: 'pro', duration: 'P1Y', reason: 'Browser test: an active subscription for the overview' });
  await go('test', 'overview');
  await main().locator('.chart canvas').first().waitFor(); // uPlot charts from the reporting services
  expect(await main().locator('.tile', { hasText: 'active subscriptions now' }).textContent()).toMatch(/^\s*[1-9]/);
  expect(await main().locator('.tile', { hasText: 'error groups seen in range' }).textContent()).toMatch(/^\s*[1-9]/);
  await shot('overview');
});

it('sets rail references; registers a webhook endpoint (secret shown once), sends a test event and replays its delivery', async () => {
  await go('live', 'rails');
  const stripe = page.getByRole('form', { name: 'Set the Stripe references' });
  await stripe.getByLabel('Secret key reference').fill('stripe-live-secret-key');
  await stripe.getByLabel('Webhook secret reference').fill('stripe-live-webhook-secret');
  await stripe.getByRole('button', { name: 'Save Stripe references' }).click();
  await main().getByText('stripe-live-webhook-secret').first().waitFor();
  await shot('rails');

  const received: string[] = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push(JSON.parse(body).type);
      res.writeHead(200).end('thanks');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  try {
    await go('test', 'webhooks');
    const form = page.getByRole('form', { name: 'Register a webhook endpoint' });
    await form.getByLabel('Endpoint URL').fill(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/${run}`);
    await form.getByLabel('entitlement.granted').check();
    await form.getByRole('button', { name: 'Register endpoint' }).click();
    await page.getByTestId('once-secret').waitFor();
    expect(await page.getByTestId('once-secret').textContent()).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'I have stored it' }).click();
    const card = page.locator('article', { hasText: `/hooks/${run}` });
    await card.waitFor();

    await card.getByRole('button', { name: 'Send test event' }).click();
    const delivered = card.locator('tr[data-delivery-id]', { has: page.locator('.state-delivery-delivered') });
    // The delivery runs in the stack's background queue: refresh until it is recorded as delivered.
    const refresh = () => Promise.all([page.waitForResponse((r) => r.url().includes('/deliveries')), card.getByRole('button', { name: 'Refresh deliveries' }).click()]);
    for (let attempt = 0; attempt < 50 && (await delivered.count()) < 1; attempt += 1) await refresh();
    expect(await delivered.count()).toBe(1);
    expect(await delivered.first().textContent()).toContain('HTTP 200');

    await delivered.first().getByRole('button', { name: 'Replay' }).click();
    await card.getByRole('status').filter({ hasText: 'replayed' }).waitFor();
    for (let attempt = 0; attempt < 50 && (await delivered.count()) < 2; attempt += 1) await refresh();
    expect(await delivered.count()).toBe(2);
    expect(await card.locator('tr[data-delivery-id]', { hasText: '(replay)' }).count()).toBe(1);
    expect(received).toEqual(['webhook.test', 'webhook.test']);
  } finally {
    receiver.close();
  }
  await shot('webhooks');
});

it('edits a webhook endpoint’s URL and event types, and deletes it after a confirmation', async () => {
  await go('test', 'webhooks');
  const form = page.getByRole('form', { name: 'Register a webhook endpoint' });
  await form.getByLabel('Endpoint URL').fill(`http://127.0.0.1:9/edit-me/${run}`);
  await form.getByLabel('entitlement.granted').check();
  await form.getByRole('button', { name: 'Register endpoint' }).click();
  await page.getByTestId('once-secret').waitFor();
  await page.getByRole('button', { name: 'I have stored it' }).click();
  const card = page.locator('article', { hasText: `/edit-me/${run}` });
  await card.waitFor();
  const endpointId = (await card.getAttribute('data-endpoint-id'))!;

  await card.getByRole('button', { name: 'Edit' }).click();
  const edit = card.getByRole('form', { name: `Edit webhook endpoint ${endpointId}` });
  await edit.getByLabel('Endpoint URL').fill(`http://127.0.0.1:9/edited/${run}`);
  await edit.getByLabel('entitlement.granted').uncheck();
  await edit.getByLabel('customer.merged').check();
  await edit.getByRole('button', { name: 'Save changes' }).click();
  const edited = page.locator(`article[data-endpoint-id="${endpointId}"]`);
  await edited.getByText(`http://127.0.0.1:9/edited/${run}`).waitFor();
  expect(await edited.locator('p.muted').first().textContent()).toContain('customer.merged');
  expect(await edited.locator('p.muted').first().textContent()).not.toContain('entitlement.granted');

  await edited.getByRole('button', { name: 'Delete', exact: true }).click();
  await edited.getByRole('button', { name: 'Keep it' }).click(); // a first click only asks
  expect(await edited.count()).toBe(1);
  await edited.getByRole('button', { name: 'Delete', exact: true }).click();
  await edited.getByRole('button', { name: /Delete now/ }).click();
  await edited.waitFor({ state: 'detached' });
  const listed = (await (await fetch(`${stack.baseUrl}/v1/dashboard-api/projects/${PROJECT}/test/webhooks`, { headers: { Authorization: `Bearer ${await page.evaluate(() => sessionStorage.getItem('tessera.dashboard.token'))}` } })).json()) as { data: { endpointId: string }[] };
  expect(listed.data.map((e) => e.endpointId)).not.toContain(endpointId);
});

it('keeps the environment switch visible and never shows live data in test', async () => {
  const liveUser = `live-only-${run}`;
  const { serviceCustomerId: liveCustomer } = await identify('live', { userId: liveUser, anonymousId: `${liveUser}-phone` });
  await go('test', 'customers');
  await page.getByLabel('Find a customer').fill(liveUser);
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByText(`No test customer matches`).waitFor();

  // Switch with the keyboard: the radio group is reachable and operable without a mouse.
  await page.getByRole('radio', { name: 'Live' }).focus();
  await page.keyboard.press('Space');
  await page.waitForURL(/\/live\/customers/);
  await page.getByTestId('test-banner').waitFor({ state: 'detached' });
  await page.getByRole('heading', { name: /Customers\s*Live/ }).waitFor();
  await page.getByLabel('Find a customer').fill(liveUser);
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByRole('link', { name: liveCustomer }).waitFor();
  await go('live', 'overview');
  await main().locator('.tiles').waitFor();
  await shot('overview-live');

  await page.getByRole('radio', { name: 'Test' }).check();
  await page.waitForURL(/\/test\/overview/);
  await page.getByTestId('test-banner').waitFor();
  for (const view of ['apps', 'webhooks', 'rails', `customers/${liveCustomer}`]) {
    await go('test', view);
    await main().locator('.loading').waitFor({ state: 'detached' });
    const html = await main().innerHTML();
    expect([view, /cd_(pub|sk)_live_/.test(html)]).toEqual([view, false]);
    expect([view, html.includes(liveCustomer) && view !== `customers/${liveCustomer}`]).toEqual([view, false]);
    expect([view, html.includes('stripe-live-webhook-secret')]).toEqual([view, false]);
  }
  // The live customer's page, opened in test: not found there (an error, not the live record).
  await go('test', `customers/${liveCustomer}`);
  await page.getByRole('alert').waitFor();
  expect(await main().textContent()).not.toContain(liveUser);
});

it('returns to the sign-in page, saying why, when the session is no longer valid', async () => {
  // As after a restart of the local stack: the page holds a session token this run never issued.
  await page.evaluate(() => sessionStorage.setItem('tessera.dashboard.token', 'tds_notAValidSessionTokenOfThisRun'));
  await go('test', 'apps');
  await page.getByRole('heading', { name: 'Tessera dashboard' }).waitFor();
  expect(await page.getByRole('alert').first().textContent()).toMatch(/session has ended/);
  expect(await page.evaluate(() => sessionStorage.getItem('tessera.dashboard.token'))).toBeNull();
});
