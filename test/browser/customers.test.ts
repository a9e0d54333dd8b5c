/**
 * The dashboard's customer browsing in a real browser (Debian's Chromium, headless, through
 * playwright-core) against `npm start`'s stack (issue 22 §5): the customer list pages (next and
 * previous), filters by email prefix and by entitlement, shows the API's refusal of filters one
 * index cannot combine, and a customer's audit trail shows older entries on request.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { AUDIT_EVENT_HEADER } from '../../functions/src/entitlements/http/mutationResponse';
import { linkMigratedUser } from '../../functions/src/identity/repository';
import { db } from '../../functions/src/store/firestore';
import { EnvScope } from '../../functions/src/store/scope';
import { launchChromium, startLocalStack, type LocalStack } from './stack';

jest.setTimeout(180_000);

// Its own Firebase project id on the run's emulator: this file's stack seeds the demo project
// without racing test/browser/dashboard.test.ts's stack (which may start at the same moment).
process.env.GCLOUD_PROJECT = 'demo-tessera-browse';

const PROJECT = 'proj_demo';
const WEB_TEST_SECRET = 'cd_sk_test_demoWeba8YRuitN1UQGa19ODpwiZ5s4';
const run = Date.now().toString(36);
const emailOf = (i: number) => `list-${run}-${String(i).padStart(2, '0')}@example.com`;

let stack: LocalStack;
let browser: BrowserContext;
let page: Page;
const customers: string[] = [];
/** The audit entries of customer 0's grants, oldest first. */
const auditIds: string[] = [];

/** Grants through the server API; returns the audit entry's id (the response header). */
async function grant(customerId: string, entitlementKey: string): Promise<string> {
  const res = await fetch(`${stack.baseUrl}/v1/server/customers/${customerId}/grant`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${WEB_TEST_SECRET}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ entitlementKey, duration: 'P30D', reason: 'Browser test of the customer list' }),
  });
  if (!res.ok) throw new Error(`grant: ${res.status} ${await res.text()}`);
  return res.headers.get(AUDIT_EVENT_HEADER)!;
}

beforeAll(async () => {
  stack = await startLocalStack();
  const scope = new EnvScope(db(), PROJECT, 'test');
  for (let i = 0; i < 27; i += 1) {
    const link = await linkMigratedUser(scope, [{ kind: 'developer', id: `list-user-${run}-${i}` }], { email: emailOf(i), traits: {} }, Date.now());
    customers.push(link.customerId!);
  }
  for (const customerId of [customers[3], customers[20]]) await grant(customerId, `vip_${run}`);
  for (let i = 0; i < 26; i += 1) auditIds.push(await grant(customers[0], `audit_${run}_${i}`));
  browser = await launchChromium();
  page = await browser.newPage();
  await page.goto(stack.loginLink);
  await page.getByRole('heading', { name: /Overview/ }).waitFor();
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

const list = () => page.getByRole('table', { name: 'Customer list' });
const rowsShown = async () => list().locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-customer-id')));

it('pages through customers found by an email prefix, and back', async () => {
  await page.goto(`${stack.baseUrl}/dashboard/#/${PROJECT}/test/customers`);
  const filters = page.getByRole('form', { name: 'Filter customers' });
  await filters.getByLabel('Email starts with').fill(`list-${run}-`);
  await filters.getByRole('button', { name: 'Apply' }).click();
  await list().getByText(emailOf(0)).waitFor();
  expect(await rowsShown()).toEqual(customers.slice(0, 25)); // by email, a page of 25
  await page.getByRole('button', { name: 'Next page' }).click();
  await list().getByText(emailOf(26)).waitFor();
  expect(await rowsShown()).toEqual(customers.slice(25));
  expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
  await page.getByRole('button', { name: 'Previous page' }).click();
  await list().getByText(emailOf(0)).waitFor();
  expect(await rowsShown()).toHaveLength(25);
});

it('filters by entitlement, and shows why filters one index cannot combine are refused', async () => {
  await page.goto(`${stack.baseUrl}/dashboard/#/${PROJECT}/test/customers`);
  const filters = page.getByRole('form', { name: 'Filter customers' });
  await filters.getByRole('button', { name: 'Clear' }).click();
  await filters.getByLabel('Entitlement').fill(`vip_${run}`);
  await filters.getByRole('button', { name: 'Apply' }).click();
  await list().getByText(`vip_${run} (manual)`).first().waitFor();
  expect((await rowsShown()).sort()).toEqual([customers[3], customers[20]].sort());

  await filters.getByLabel('Status').selectOption('active');
  await filters.getByRole('button', { name: 'Apply' }).click();
  await page.getByText('The entitlement and rail filters cannot be combined with status').waitFor();
});

it('opens a customer from the list and shows older audit entries on request, newest first', async () => {
  await page.goto(`${stack.baseUrl}/dashboard/#/${PROJECT}/test/customers`);
  const filters = page.getByRole('form', { name: 'Filter customers' });
  await filters.getByRole('button', { name: 'Clear' }).click();
  await filters.getByLabel('User id starts with').fill(`list-user-${run}-0`);
  await filters.getByRole('button', { name: 'Apply' }).click();
  await list().getByRole('link', { name: customers[0] }).click();
  await page.getByRole('heading', { name: new RegExp(customers[0]) }).waitFor();
  const audit = page.getByRole('table', { name: 'Audit entries' });
  await audit.waitFor();
  const shown = () => audit.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-event-id')));
  expect(await shown()).toEqual([...auditIds].reverse().slice(0, 25)); // newest first
  await page.getByRole('button', { name: 'Show older audit entries' }).click();
  await audit.locator('tbody tr').nth(25).waitFor();
  expect(await shown()).toEqual([...auditIds].reverse());
  expect(await page.getByRole('button', { name: 'Show older audit entries' }).count()).toBe(0);
});
