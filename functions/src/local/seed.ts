import { readFileSync } from 'node:fs';
import type { Firestore } from 'firebase-admin/firestore';
import { createKeys } from '../keys/lifecycle';
import { projectRef } from '../projects/paths';
import type { Platform } from '../wire/vocabulary';
import { createApp, createProject } from '../projects/repository';
import type { Env } from '../store/env';
import { CLI_ACTOR } from '../audit/operatorActor';
import type { OperatorRole } from '../dashboard/model';
import { addOperator, operatorRole } from '../dashboard/operators';

export interface DemoAppSpec {
  appId?: string;
  platform: Platform;
  name: string;
  allowedOrigins?: string[];
  bundleId?: string;
  packageName?: string;
  keys?: Partial<Record<Env, { publishable: string; secret: string }>>;
}

export interface DemoSpec {
  project: { projectId?: string; name: string };
  apps: DemoAppSpec[];
  /** Dashboard operators of the demo project (the emulator suite signs them in through the Auth emulator). */
  operators?: { email: string; role: OperatorRole }[];
}

export interface DemoApp {
  appId: string;
  platform: Platform;
  keys: Record<Env, { publishable: string; secret: string }>;
}

export interface DemoProject {
  projectId: string;
  apps: DemoApp[];
  /** False when the project already existed (state restored from a previous run). */
  created: boolean;
}

export function readDemoSpec(path: string): DemoSpec {
  return JSON.parse(readFileSync(path, 'utf8')) as DemoSpec;
}

/**
 * Creates the demo project, its three apps and their test and live keys. Idempotent for a
 * spec with fixed ids: an existing project is left as it is.
 */
export async function seedDemo(db: Firestore, spec: DemoSpec, now: number): Promise<DemoProject> {
  if (spec.project.projectId && (await projectRef(db, spec.project.projectId).get()).exists) {
    return { projectId: spec.project.projectId, apps: spec.apps.map(appFromSpec), created: false };
  }
  const project = await createProject(db, spec.project.name, now, spec.project.projectId);
  const apps: DemoApp[] = [];
  for (const appSpec of spec.apps) {
    const app = await createApp(
      db,
      { projectId: project.projectId, platform: appSpec.platform, name: appSpec.name, allowedOrigins: appSpec.allowedOrigins, bundleId: appSpec.bundleId, packageName: appSpec.packageName },
      now,
      appSpec.appId,
    );
    const keys = {} as DemoApp['keys'];
    for (const env of ['test', 'live'] as const) {
      const minted = await createKeys(db, { appId: app.appId, env, fixedKeys: appSpec.keys?.[env] }, now);
      keys[env] = { publishable: minted.publishable.key, secret: minted.secret.key };
    }
    apps.push({ appId: app.appId, platform: app.platform, keys });
  }
  return { projectId: project.projectId, apps, created: true };
}

function appFromSpec(spec: DemoAppSpec): DemoApp {
  if (!spec.appId || !spec.keys?.test || !spec.keys.live) throw new Error('a fixed demo spec needs app ids and keys');
  return { appId: spec.appId, platform: spec.platform, keys: spec.keys as DemoApp['keys'] };
}

/** The demo of `tessera demo`: fresh ids and freshly minted keys, same shape as the seed. */
export function randomDemoSpec(): DemoSpec {
  return {
    project: { name: 'Tessera demo' },
    apps: [
      { platform: 'web', name: 'Demo web app', allowedOrigins: ['http://localhost:3000'] },
      { platform: 'ios', name: 'Demo iOS app', bundleId: 'com.example.tessera.demo' },
      { platform: 'android', name: 'Demo Android app', packageName: 'com.example.tessera.demo' },
    ],
  };
}

/**
 * Grants the spec's operators on the demo project, each once (a restored state keeps its
 * operators and their audit entries as they are). Returns every operator with its role.
 */
export async function seedOperators(db: Firestore, spec: DemoSpec, projectId: string, now: number): Promise<{ email: string; role: OperatorRole }[]> {
  const granted: { email: string; role: OperatorRole }[] = [];
  for (const operator of spec.operators ?? []) {
    const role = (await operatorRole(db, projectId, operator.email)) ?? (await addOperator(db, projectId, operator.email, operator.role, CLI_ACTOR, now)).role;
    granted.push({ email: operator.email, role });
  }
  return granted;
}
