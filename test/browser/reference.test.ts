/**
 * Guarantees of the API reference page in a real browser (Debian's Chromium, headless) against
 * `npm start`'s stack: it is served on the same origin at /reference/, renders from the OpenAPI
 * document (a route, its parameters and its error codes are on the page), loads nothing from
 * another origin and runs no script (its Content-Security-Policy allows none), and the
 * dashboard's nav links to it. The document itself is served at /v1/openapi.json.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { launchChromium, startLocalStack, type LocalStack } from './stack';

jest.setTimeout(120_000);

let stack: LocalStack;
let browser: BrowserContext;
let page: Page;
const requested: string[] = [];

beforeAll(async () => {
  stack = await startLocalStack();
  browser = await launchChromium();
  page = await browser.newPage();
  page.on('request', (request) => requested.push(request.url()));
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

it('renders the reference from the document: a route with its parameters, keys and error codes', async () => {
  const res = await page.goto(`${stack.baseUrl}/reference/`);
  expect(res?.status()).toBe(200);
  expect(res?.headers()['content-security-policy']).toContain("default-src 'none'");
  await expect(page.title()).resolves.toBe('Tessera API reference');

  const grant = page.locator('article#postServerCustomersCustomerIdGrant');
  await expect(grant.locator('h3').innerText()).resolves.toContain('/v1/server/customers/{customerId}/grant');
  const text = await grant.innerText();
  expect(text).toContain('entitlementKey');
  expect(text).toContain('secretBearer');
  expect(text).toContain('invalid_customer');

  // The table of contents links to the operation.
  await page.locator('nav.toc a[href="#getEntitlements"]').click();
  expect(page.url()).toMatch(/#getEntitlements$/);
  await expect(page.locator('article#getEntitlements').isVisible()).resolves.toBe(true);
});

it('loads only from its own origin and runs no script', async () => {
  await page.goto(`${stack.baseUrl}/reference/`);
  expect(requested.length).toBeGreaterThan(0);
  for (const url of requested) expect(new URL(url).origin).toBe(stack.baseUrl);
  await expect(page.locator('script').count()).resolves.toBe(0);
});

it('is linked from the dashboard’s nav, and the document it renders is served at /v1/openapi.json', async () => {
  await page.goto(stack.loginLink);
  const link = page.locator('nav[aria-label="Pages"] a', { hasText: 'API reference' });
  await link.waitFor();
  await expect(link.getAttribute('href')).resolves.toBe('/reference/');
  const document = (await (await fetch(`${stack.baseUrl}/v1/openapi.json`)).json()) as { openapi: string; paths: Record<string, unknown> };
  expect(document.openapi).toBe('3.1.0');
  expect(Object.keys(document.paths)).toContain('/v1/server/customers/{customerId}/grant');
});
