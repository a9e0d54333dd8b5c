import { invalidParam } from '../../http/errors';
import { route } from '../../http/route';
import { auditRef } from '../append';
import { toPublicAuditEntry } from '../publicShape';

/** Event ids are document ids: rail ids (`evt_…`, UUIDs, Pub/Sub ids) and `srv_<action>_…`. */
const EVENT_ID = /^[A-Za-z0-9_.:-]{1,200}$/;
const isEventId = (id: string): boolean => EVENT_ID.test(id) && id !== '.' && id !== '..' && !/^__.*__$/.test(id);

/**
 * `GET /v1/server/audit/{eventId}`: one entry of the key's own project and environment. An id
 * that is unknown there (including one of the other environment or another project, which
 * live under other paths) is `400 invalid_param_value`.
 */
export const auditReadRoute = route({
  method: 'GET',
  path: '/v1/server/audit/:eventId',
  key: 'secret',
  cacheControl: 'private, no-store',
  handler: async (ctx) => {
    const eventId = ctx.params.eventId ?? '';
    const unknown = invalidParam(`No audit entry ${JSON.stringify(eventId.slice(0, 200))} in this project and environment.`);
    if (!isEventId(eventId)) throw unknown;
    const snapshot = await ctx.scope.get(auditRef(ctx.scope, eventId));
    const entry = snapshot.data() ?? null;
    // The path already partitions; the stamp is checked as well so a misfiled entry never leaks.
    if (!entry || entry.projectId !== ctx.scope.projectId || entry.env !== ctx.scope.env) throw unknown;
    return { body: { object: 'audit_entry', data: toPublicAuditEntry(entry) } };
  },
});
