import type { Firestore } from 'firebase-admin/firestore';
import { DomainError } from '../errors/domain';
import { isEnv } from '../store/env';
import { EnvScope } from '../store/scope';
import { WEBHOOK_EVENTS } from './eventModel';
import { WEBHOOK_ENDPOINTS } from './model';
import { WEBHOOK_ENDPOINT_ID, WEBHOOK_EVENT_ID } from '../ids';

/**
 * An endpoint id alone finds its partition (`webhooks disable|enable|rotate-secret --endpoint`):
 * a collection-group query on the record's own `endpointId` field (single-field index with
 * collection-group scope in firestore.indexes.json). The record names its project and
 * environment, and the scope is checked against the path it was found at.
 */
export async function locateEndpoint(db: Firestore, endpointId: string): Promise<EnvScope> {
  if (!WEBHOOK_ENDPOINT_ID.pattern.test(endpointId)) throw new DomainError('invalid_argument', `'${endpointId.slice(0, 80)}' is not a webhook endpoint id (whep_…).`);
  const found = await db.collectionGroup(WEBHOOK_ENDPOINTS).where('endpointId', '==', endpointId).limit(2).get();
  if (found.empty) throw new DomainError('not_found', `No webhook endpoint ${endpointId}.`);
  const doc = found.docs[0];
  const { projectId, env } = doc.data() as { projectId: unknown; env: unknown };
  if (typeof projectId !== 'string' || !isEnv(env) || found.size > 1) throw new Error(`webhook endpoint ${endpointId} is not where its record says`);
  const scope = new EnvScope(db, projectId, env);
  if (doc.ref.path !== scope.doc(WEBHOOK_ENDPOINTS, endpointId).path) throw new Error(`webhook endpoint ${endpointId} is not where its record says`);
  return scope;
}

/**
 * An event id alone finds its partition (`webhooks replay --event` without `--endpoint`): a
 * collection-group query on the outbox record's own `eventId` (index in firestore.indexes.json),
 * checked against the path it was found at.
 */
export async function locateEvent(db: Firestore, eventId: string): Promise<EnvScope> {
  if (!WEBHOOK_EVENT_ID.pattern.test(eventId)) throw new DomainError('invalid_argument', `'${eventId.slice(0, 80)}' is not a webhook event id (evt_…).`);
  const found = await db.collectionGroup(WEBHOOK_EVENTS).where('eventId', '==', eventId).limit(2).get();
  if (found.empty) throw new DomainError('not_found', `No webhook event ${eventId}.`);
  const doc = found.docs[0];
  const { projectId, env } = doc.data() as { projectId: unknown; env: unknown };
  if (typeof projectId !== 'string' || !isEnv(env) || found.size > 1) throw new Error(`webhook event ${eventId} is not where its record says`);
  const scope = new EnvScope(db, projectId, env);
  if (doc.ref.path !== scope.doc(WEBHOOK_EVENTS, eventId).path) throw new Error(`webhook event ${eventId} is not where its record says`);
  return scope;
}
