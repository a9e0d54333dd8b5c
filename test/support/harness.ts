import type { Express } from 'express';
import supertest from 'supertest';
import { createDeps, type RootDeps, type DepsOverrides } from '../../functions/src/app/deps';
import { ALL_ROUTES } from '../../functions/src/app/groups';
import { ManualClock } from './manualClock';
import { createServiceApp } from '../../functions/src/app/serviceApp';
import { createKeys } from '../../functions/src/keys/lifecycle';
import type { Platform } from '../../functions/src/wire/vocabulary';
import { createApp, createProject } from '../../functions/src/projects/repository';
import type { Env } from '../../functions/src/store/env';
import { InProcessTaskQueue } from '../../functions/src/tasks/inProcessQueue';
import { checkResponse, takeResponseDrifts } from './responseCheck';

/**
 * The test harness: the real pipeline and every route, against the run's Firestore emulator,
 * with a manual clock and an in-process task queue that retries at once. Each call to
 * `seedProject` makes a fresh project, so suites never see each other's data.
 */
export interface TestService {
  deps: RootDeps;
  app: Express;
  clock: ManualClock;
  tasks: InProcessTaskQueue;
  request: () => supertest.Agent;
}

/**
 * Every service's queue finishes its background work (webhook fan-outs of the last grants, …)
 * before the file's own teardown: registered when this module loads, so it runs first.
 */
const createdQueues: InProcessTaskQueue[] = [];
afterAll(async () => {
  await Promise.all(createdQueues.map((queue) => queue.drain()));
});

/** Every answer of the API is checked against its route's response schema (responseCheck.ts); a drift fails the test that saw it. */
afterEach(() => {
  const drifts = takeResponseDrifts();
  if (drifts.length > 0) throw new Error(`response shapes drifted from their schemas:\n${drifts.map((d) => `${d.route} ${d.status}: ${d.errors.join('; ')}\n  body: ${JSON.stringify(d.body).slice(0, 2000)}`).join('\n')}`);
});

export function createTestService(overrides: DepsOverrides = {}): TestService {
  const clock = overrides.clock instanceof ManualClock ? overrides.clock : new ManualClock(Date.now());
  const tasks = overrides.tasks instanceof InProcessTaskQueue ? overrides.tasks : new InProcessTaskQueue({ backoffMs: () => 0 });
  createdQueues.push(tasks);
  const deps = createDeps({ ...overrides, clock, tasks });
  const app = createServiceApp(ALL_ROUTES, deps, { checkResponse });
  return { deps, app, clock, tasks, request: () => supertest.agent(app) };
}

export interface AppKeys {
  appId: string;
  platform: Platform;
  test: { publishable: string; secret: string; publishableId: string; secretId: string };
  live: { publishable: string; secret: string; publishableId: string; secretId: string };
}

export interface SeededProject {
  projectId: string;
  web: AppKeys;
  ios: AppKeys;
  android: AppKeys;
}

export const WEB_ORIGIN = 'https://app.example.com';
export const BUNDLE_ID = 'com.example.app';
export const PACKAGE_NAME = 'com.example.android';

export async function seedProject(service: TestService, options: { webOrigins?: string[]; scopes?: string[]; acknowledgeRowLevelData?: boolean } = {}): Promise<SeededProject> {
  const { db } = service.deps;
  const now = service.clock.now();
  const project = await createProject(db, 'test project', now);
  const make = async (platform: Platform, extra: { allowedOrigins?: string[]; bundleId?: string; packageName?: string }): Promise<AppKeys> => {
    const app = await createApp(db, { projectId: project.projectId, platform, ...extra }, now);
    const keys = {} as Record<Env, AppKeys['test']>;
    for (const env of ['test', 'live'] as const) {
      const minted = await createKeys(db, { appId: app.appId, env, scopes: options.scopes, acknowledgeRowLevelData: options.acknowledgeRowLevelData }, now);
      keys[env] = { publishable: minted.publishable.key, secret: minted.secret.key, publishableId: minted.publishable.id, secretId: minted.secret.id };
    }
    return { appId: app.appId, platform, ...keys };
  };
  return {
    projectId: project.projectId,
    web: await make('web', { allowedOrigins: options.webOrigins ?? [WEB_ORIGIN] }),
    ios: await make('ios', { bundleId: BUNDLE_ID }),
    android: await make('android', { packageName: PACKAGE_NAME }),
  };
}

/** Headers that satisfy each platform's identity lock. */
export function lockHeaders(platform: Platform): Record<string, string> {
  if (platform === 'web') return { Origin: WEB_ORIGIN };
  if (platform === 'ios') return { 'X-Service-Bundle-Id': BUNDLE_ID };
  return { 'X-Service-Package-Name': PACKAGE_NAME };
}

/** Asserts the error envelope and the request-id correlation in one place. */
export function expectError(res: supertest.Response, status: number, type: string, code: string): void {
  if (res.status !== status || res.body?.error?.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${res.status} ${JSON.stringify(res.body)}`);
  }
  expect(res.body.error.type).toBe(type);
  expect(typeof res.body.error.message).toBe('string');
  expect(res.body.error.request_id).toMatch(/^req_/);
  expect(res.headers['x-request-id']).toBe(res.body.error.request_id);
}
