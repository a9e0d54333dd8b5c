import type { Firestore } from 'firebase-admin/firestore';
import type { Env } from '../../../functions/src/store/env';
import { EnvScope } from '../../../functions/src/store/scope';
import { directoryOf, webhookDirectoryRef, type DirectoryEntry } from '../../../functions/src/webhooks/directory';
import { WEBHOOK_ENDPOINTS, type WebhookEndpointRecord } from '../../../functions/src/webhooks/model';

/** The partition's stored directory (null: none yet). */
export async function storedDirectory(db: Firestore, projectId: string, env: Env): Promise<DirectoryEntry[] | null> {
  const scope = new EnvScope(db, projectId, env);
  return directoryOf(await webhookDirectoryRef(scope).get())?.endpoints ?? null;
}

/** What the directory must say, from the endpoint records themselves: every enabled one with what its attempts need. */
export async function enabledFromRecords(db: Firestore, projectId: string, env: Env): Promise<DirectoryEntry[]> {
  const scope = new EnvScope(db, projectId, env);
  const records = (await scope.collection(WEBHOOK_ENDPOINTS).get()).docs.map((d) => d.data() as WebhookEndpointRecord);
  return records
    .filter((r) => r.disabled === null)
    .map((r) => ({
      endpointId: r.endpointId,
      eventTypes: r.eventTypes,
      url: r.url,
      failingSince: r.failingSince ?? null,
      secret: { ref: r.secret.ref, generation: r.secret.generation },
      previousSecret: r.previousSecret ? { ref: r.previousSecret.ref, generation: r.previousSecret.generation, expiresAt: r.previousSecret.expiresAt } : null,
    }))
    .sort((a, b) => a.endpointId.localeCompare(b.endpointId));
}

/** The directory equals the records (order-free): fails when a path that changes an endpoint forgot it. */
export async function expectDirectoryMatchesRecords(db: Firestore, projectId: string, env: Env): Promise<void> {
  const sorted = (entries: DirectoryEntry[] | null) => entries && [...entries].map((e) => ({ ...e, eventTypes: [...e.eventTypes].sort() })).sort((a, b) => a.endpointId.localeCompare(b.endpointId));
  expect(sorted(await storedDirectory(db, projectId, env))).toEqual(sorted(await enabledFromRecords(db, projectId, env)));
}
