import type { TestService } from '../support/harness';

/** Helpers shared by the reports suites (not a suite itself). */

/** GET a report with a secret key; fails the test on anything but 200. */
export async function report<T = Record<string, any>>(service: TestService, key: string, path: string): Promise<T> {
  const res = await service.request().get(path).set('Authorization', `Bearer ${key}`);
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  expect(res.headers['cache-control']).toBe('private, no-store');
  return res.body as T;
}

/** Start of the UTC day holding `ms`. */
export const utcDay = (ms: number): number => Math.floor(ms / 86_400_000) * 86_400_000;
export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;
