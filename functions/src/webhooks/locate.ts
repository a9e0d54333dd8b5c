import type { Firestore } from 'firebase-admin/firestore';
import { DomainError } from '../errors/domain';
import { queryAcrossPartitions } from '../store/partitions';
import type { EnvScope } from '../store/scope';
import { WEBHOOK_EVENTS, webhookEventConverter } from './eventModel';
import { endpointConverter, WEBHOOK_ENDPOINTS } from './model';
import { WEBHOOK_ENDPOINT_ID, WEBHOOK_EVENT_ID } from '../ids';

/**
 * An endpoint id alone finds its partition (`webhooks disable|enable|rotate-secret --endpoint`):
 * a collection-group query on the record's own `endpointId` field (single-field index with
 * collection-group scope in firestore.indexes.json). The scope is the partition of the path it
 * was found at, and the record must name that same partition.
 */
export async function locateEndpoint(db: Firestore, endpointId: string): Promise<EnvScope> {
  if (!WEBHOOK_ENDPOINT_ID.pattern.test(endpointId)) throw new DomainError('invalid_argument', `'${endpointId.slice(0, 80)}' is not a webhook endpoint id (whep_…).`);
  const found = await queryAcrossPartitions(db, WEBHOOK_ENDPOINTS, endpointConverter, (endpoints) => endpoints.where('endpointId', '==', endpointId).limit(2));
  if (found.found === 0) throw new DomainError('not_found', `No webhook endpoint ${endpointId}.`);
  return soleRecordScope(found.found, found.documents, endpointId, `webhook endpoint ${endpointId}`);
}

/**
 * An event id alone finds its partition (`webhooks replay --event` without `--endpoint`): a
 * collection-group query on the outbox record's own `eventId` (index in firestore.indexes.json),
 * checked against the path it was found at.
 */
export async function locateEvent(db: Firestore, eventId: string): Promise<EnvScope> {
  if (!WEBHOOK_EVENT_ID.pattern.test(eventId)) throw new DomainError('invalid_argument', `'${eventId.slice(0, 80)}' is not a webhook event id (evt_…).`);
  const found = await queryAcrossPartitions(db, WEBHOOK_EVENTS, webhookEventConverter, (events) => events.where('eventId', '==', eventId).limit(2));
  if (found.found === 0) throw new DomainError('not_found', `No webhook event ${eventId}.`);
  return soleRecordScope(found.found, found.documents, eventId, `webhook event ${eventId}`);
}

/** The scope of the one record found, which must sit at its own id in the partition it names. */
function soleRecordScope(
  found: number,
  documents: { scope: EnvScope; doc: { id: string; data(): { projectId: string; env: string } } }[],
  id: string,
  what: string,
): EnvScope {
  const [only] = documents;
  const record = only?.doc.data();
  if (found > 1 || !only || only.doc.id !== id || record?.projectId !== only.scope.projectId || record.env !== only.scope.env) {
    throw new Error(`${what} is not where its record says`);
  }
  return only.scope;
}
