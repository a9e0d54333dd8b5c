import type { Firestore, Transaction } from 'firebase-admin/firestore';
import { appendAudit, newServerEventId } from '../audit/append';
import { operatorChangeEntry, type OperatorActor } from '../audit/operatorActor';
import { ENVS } from '../store/env';
import { randomToken } from '../ids/random';
import { appRef, projectRef } from './paths';
import type { Platform } from '../wire/vocabulary';
import { DomainError } from '../errors/domain';
import type { AppRecord, ProjectRecord } from './model';
import { APP_ID } from '../ids';
import { scopesOfProject } from '../store/partitions';

/** Project and app records: operator-managed, not environment-scoped. */

export async function createProject(db: Firestore, name: string, now: number, projectId = `proj_${randomToken(16)}`): Promise<ProjectRecord> {
  const record: ProjectRecord = { projectId, name, archived: false, createdAt: now };
  await projectRef(db, projectId).create(record);
  return record;
}

export async function getProject(db: Firestore, projectId: string): Promise<ProjectRecord> {
  const project = (await projectRef(db, projectId).get()).data();
  if (!project) throw new DomainError('not_found', `No project ${projectId}.`);
  return project;
}

export interface NewApp {
  projectId: string;
  platform: Platform;
  name?: string;
  allowedOrigins?: string[];
  bundleId?: string | null;
  packageName?: string | null;
}

/** Created by an operator (the dashboard): audited, and the answer names the entry. The CLI and the seed pass no actor. */
export async function createApp(db: Firestore, input: NewApp, now: number, appId?: string): Promise<AppRecord>;
export async function createApp(db: Firestore, input: NewApp, now: number, appId: string | undefined, actor: OperatorActor): Promise<AppRecord & { auditEventId: string }>;
export async function createApp(db: Firestore, input: NewApp, now: number, appId = `${APP_ID.prefix}${randomToken(16)}`, actor?: OperatorActor): Promise<AppRecord | (AppRecord & { auditEventId: string })> {
  const project = await getProject(db, input.projectId);
  if (project.archived) throw new DomainError('archived', `Project ${input.projectId} is archived.`);
  if (input.platform === 'ios' && !input.bundleId) throw new DomainError('invalid_argument', 'An iOS app needs a bundle ID.');
  if (input.platform === 'android' && !input.packageName) throw new DomainError('invalid_argument', 'An Android app needs a package name.');
  const record: AppRecord = {
    appId,
    projectId: input.projectId,
    name: input.name ?? `${input.platform} app`,
    platform: input.platform,
    allowedOrigins: input.platform === 'web' ? [...new Set(input.allowedOrigins ?? [])] : [],
    bundleId: input.platform === 'ios' ? (input.bundleId ?? null) : null,
    packageName: input.platform === 'android' ? (input.packageName ?? null) : null,
    archived: false,
    createdAt: now,
    currentKeys: { test: { publishable: null, secret: null }, live: { publishable: null, secret: null } },
  };
  if (!actor) {
    await appRef(db, appId).create(record);
    return record;
  }
  // A dashboard operator's change: the app and its audit entry (in both environments' logs,
  // since an app serves both) commit together.
  const auditEventId = newServerEventId('app');
  const scopes = scopesOfProject(db, input.projectId);
  await db.runTransaction(async (tx) => {
    tx.create(appRef(db, appId), record);
    for (const env of ENVS) {
      appendAudit(tx, scopes[env], operatorChangeEntry({
        eventId: auditEventId,
        eventType: 'app.created',
        reason: `Operator created ${record.platform} app ${appId}.`,
        fromState: null,
        toState: 'active',
        now,
        actor,
        details: { appId, name: record.name, platform: record.platform, allowedOrigins: record.allowedOrigins, bundleId: record.bundleId, packageName: record.packageName },
      }));
    }
  });
  return { ...record, auditEventId };
}

export async function getApp(db: Firestore, appId: string, tx?: Transaction): Promise<AppRecord> {
  const ref = appRef(db, appId);
  const app = (tx ? await tx.get(ref) : await ref.get()).data();
  if (!app) throw new DomainError('not_found', `No app ${appId}.`);
  return app;
}
