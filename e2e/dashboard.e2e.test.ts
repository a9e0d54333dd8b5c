/**
 * The dashboard under the suite, in headless Chromium (Debian's, via playwright-core): the
 * operator asks for an email link, the suite prints the link the Auth emulator issued, opening
 * it signs in through Firebase Authentication (the emulator); a grant is made from the page and
 * lands in the API; sign-out ends the session on the server (the old token is refused).
 */
import type { BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../test/browser/stack';
import { api, eventually, IOS_BUNDLE, IOS_TEST_PUBLISHABLE, PROJECT, suite, suiteOutput } from './support/suite';

const OPERATOR = 'operator@example.com';
const run = Date.now().toString(36);

let browser: BrowserContext;
let page: Page;

beforeAll(async () => {
  browser = await launchChromium();
  page = await browser.newPage();
});
afterAll(async () => {
  await browser?.close();
});

/** The link the suite printed for OPERATOR after `since` characters of its output. */
function printedLink(since: number): string | undefined {
  const match = new RegExp(`Sign-in link for ${OPERATOR.replace('.', '\\.')}[^\\n]*\\n\\s*(\\S+)`).exec(suiteOutput().slice(since));
  return match?.[1];
}

it('signs in with an email link through the Auth emulator, grants from the page, and signs out for good', async () => {
  const { baseUrl } = suite().running;
  const userId = `e2e-dash-${run}`;
  const identified = await api('POST', '/v1/identify', IOS_TEST_PUBLISHABLE, { userId, anonymousId: `e2e-dash-device-${run}` }, IOS_BUNDLE);
  const customerId: string = identified.body.serviceCustomerId;

  // Ask for a link: the page calls the Auth emulator (not Google) and says where the link is.
  await page.goto(`${baseUrl}/dashboard/`);
  const outputBefore = suiteOutput().length;
  await page.getByLabel('Operator email').fill(OPERATOR);
  await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
  await page.getByTestId('emulator-link-note').waitFor();
  const link = await eventually('the suite to print the sign-in link', async () => printedLink(outputBefore), 30_000);
  expect(link).toContain(`${suite().running.suite.authEmulatorHost}/emulator/action?mode=signIn`);

  // Opening it signs in: the Auth emulator redirects to the dashboard, which completes the sign-in.
  await page.goto(link);
  await page.getByRole('heading', { name: /Overview/ }).waitFor();
  expect(await page.locator('header .who').textContent()).toContain(OPERATOR);
  expect(page.url()).not.toContain('oobCode');

  // A grant from the customer's page.
  await page.goto(`${baseUrl}/dashboard/#/${PROJECT}/test/customers`);
  await page.getByLabel('Find a customer').fill(userId);
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByRole('link', { name: customerId }).click();
  const grant = page.getByRole('form', { name: 'Grant an entitlement' });
  await grant.getByLabel('Entitlement key').fill('pro');
  await grant.getByLabel('Duration').selectOption('P90D');
  await grant.getByLabel('Reason').fill('End-to-end: granted from the dashboard under the suite');
  await grant.getByRole('button', { name: 'Grant' }).click();
  await grant.getByRole('status').waitFor();
  const read = await api('GET', `/v1/entitlements?userId=${encodeURIComponent(userId)}`, IOS_TEST_PUBLISHABLE, undefined, IOS_BUNDLE);
  expect(read.body.data).toEqual([expect.objectContaining({ key: 'pro', isActive: true, object: 'entitlement' })]);

  // Sign-out: back to the sign-in page, and the token the page held is refused by the server.
  const token = await page.evaluate(() => sessionStorage.getItem('tessera.dashboard.token'));
  expect(token).toEqual(expect.any(String));
  const session = () => fetch(`${baseUrl}/v1/dashboard-api/session`, { headers: { Authorization: `Bearer ${token}` } });
  expect((await session()).status).toBe(200);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'Email me a sign-in link' }).waitFor();
  expect(await page.evaluate(() => sessionStorage.getItem('tessera.dashboard.token'))).toBeNull();
  const after = await session();
  expect(after.status).toBe(401);
  expect(((await after.json()) as { error: { code: string } }).error.code).toBe('operator_unauthenticated');
});
