import type { Deps } from '../app/deps';
import { invalidParam } from '../http/errors';
import { projectRef } from '../keys/paths';
import type { ProjectRecord } from '../projects/model';
import type { Env } from '../store/env';
import { countedGetAll } from '../store/counted';
import { EnvScope } from '../store/scope';
import { railsConfigRef, type RailsConfig } from './config';

/**
 * What an inbound notification is addressed to: an existing, unarchived project and its rails
 * configuration in both environments, read in one round trip. Which environment's data the
 * notification may touch is decided later, from the verified payload only.
 */
export interface WebhookTarget {
  projectId: string;
  configs: Record<Env, RailsConfig>;
}

const PROJECT_ID = /^[A-Za-z0-9_-]{1,128}$/;

export async function loadWebhookTarget(deps: Deps, projectId: string): Promise<WebhookTarget> {
  if (!PROJECT_ID.test(projectId)) throw invalidParam('Unknown project.');
  // Scopes used for nothing but locating the two configuration documents.
  const configRef = (env: Env) => railsConfigRef(new EnvScope(deps.db, projectId, env));
  const [project, test, live] = await countedGetAll(deps.db, [projectRef(deps.db, projectId), configRef('test'), configRef('live')]);
  if (!project.exists || (project.data() as ProjectRecord).archived) throw invalidParam('Unknown project.');
  return {
    projectId,
    configs: {
      test: test.exists ? (test.data() as RailsConfig) : {},
      live: live.exists ? (live.data() as RailsConfig) : {},
    },
  };
}

/** The partition of a verified notification: the only scope its decision is written through. */
export function verifiedScope(deps: Deps, target: WebhookTarget, env: Env): EnvScope {
  return new EnvScope(deps.db, target.projectId, env, null);
}
