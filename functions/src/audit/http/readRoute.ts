import { invalidParam } from '../../http/errors';
import { route } from '../../http/route';
import { auditRef } from '../append';
import { toPublicAuditEntry } from '../publicShape';
import { AUDIT_EVENT_ID } from '../../ids';
import { auditEntryResponseSchema, auditEventParamsSchema, type AuditEntryResponse, type AuditEventParams } from '../../wire/entitlements';


/**
 * `GET /v1/server/audit/{eventId}`: one entry of the key's own project and environment. An id
 * that is unknown there (including one of the other environment or another project, which
 * live under other paths) is `400 invalid_param_value`, and so is a malformed one (same answer:
 * a malformed id is just an unknown one).
 */
export const auditReadRoute = route<unknown, Record<string, string>, AuditEventParams, AuditEntryResponse>({
  method: 'GET',
  path: '/v1/server/audit/:eventId',
  key: 'secret',
  params: auditEventParamsSchema,
  response: auditEntryResponseSchema,
  cacheControl: 'private, no-store',
  handler: async (ctx) => {
    const { eventId } = ctx.params;
    const unknown = invalidParam(`No audit entry ${JSON.stringify(eventId.slice(0, 200))} in this project and environment.`);
    if (!AUDIT_EVENT_ID.is(eventId)) throw unknown;
    const snapshot = await ctx.scope.get(auditRef(ctx.scope, eventId));
    const entry = snapshot.data() ?? null;
    // The path already partitions; the stamp is checked as well so a misfiled entry never leaks.
    if (!entry || entry.projectId !== ctx.scope.projectId || entry.env !== ctx.scope.env) throw unknown;
    return { body: { object: 'audit_entry', data: toPublicAuditEntry(entry) } };
  },
});
