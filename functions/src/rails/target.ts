import { invalidParamValue } from '../errors/domain';
import { projectRef } from '../projects/paths';
import type { Env } from '../store/env';
import { db } from '../store/firestore';
import { countedGetAll } from '../store/counted';
import { EnvScope } from '../store/scope';
import { railsConfigRef, type RailsConfig } from './config';
import { PROJECT_ID } from '../ids';
import { scopesOfProject } from '../store/partitions';

/**
 * What an inbound notification is addressed to: an existing, unarchived project and its rails
 * configuration in both environments, read in one round trip. Which environment's data the
 * notification may touch is decided later, from the verified payload only.
 */
export interface WebhookTarget {
  projectId: string;
  configs: Record<Env, RailsConfig>;
}

/**
 * Rail target resolution establishes a scope from a notification (no API key names one), so it
 * is one of the few modules that hold the unscoped handle (test/foundation/partition.test.ts).
 */
export async function loadWebhookTarget(projectId: string): Promise<WebhookTarget> {
  if (!PROJECT_ID.is(projectId)) throw invalidParamValue('Unknown project.');
  const root = db();
  // Scopes used for nothing but locating the two configuration documents.
  const scopes = scopesOfProject(root, projectId);
  const [project, test, live] = await countedGetAll(root, [projectRef(root, projectId), railsConfigRef(scopes.test), railsConfigRef(scopes.live)]);
  const record = project.data();
  if (!record || record.archived) throw invalidParamValue('Unknown project.');
  return {
    projectId,
    configs: {
      test: test.data() ?? {},
      live: live.data() ?? {},
    },
  };
}

/** The partition of a verified notification: the only scope its decision is written through. */
export function verifiedScope(target: WebhookTarget, env: Env): EnvScope {
  return new EnvScope(db(), target.projectId, env, null);
}
