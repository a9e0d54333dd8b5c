import { invalidParam } from '../../http/errors';
import { route } from '../../http/route';
import { IN_PROJECT, NO_STORE, reply } from './paths';
import { AUDIT_EVENT_ID } from '../../ids';

/** One audit entry by event id, from the path's project and environment only (a customer's entries come with the customer). */

export const auditEntryRoute = route({
  method: 'GET',
  path: `${IN_PROJECT}/audit/:eventId`,
  key: 'operator',
  cacheControl: NO_STORE,
  handler: async (ctx) => {
    const eventId = ctx.params.eventId ?? '';
    if (!AUDIT_EVENT_ID.is(eventId)) throw invalidParam('Not an audit event id.');
    return reply(await ctx.operator.console.auditEntry(eventId));
  },
});
