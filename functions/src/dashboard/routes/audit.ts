import { invalidParam } from '../../http/errors';
import { dashboardRoute, IN_PROJECT, NO_STORE, reply } from './paths';

/** One audit entry by event id, from the path's project and environment only (a customer's entries come with the customer). */
const EVENT_ID = /^[A-Za-z0-9_.:-]{1,200}$/;

export const auditEntryRoute = dashboardRoute({
  method: 'GET',
  path: `${IN_PROJECT}/audit/:eventId`,
  key: 'operator',
  cacheControl: NO_STORE,
  handler: async (ctx) => {
    const eventId = ctx.params.eventId ?? '';
    if (!EVENT_ID.test(eventId) || eventId === '.' || eventId === '..' || /^__.*__$/.test(eventId)) throw invalidParam('Not an audit event id.');
    return reply(await ctx.operator.console.auditEntry(eventId));
  },
});
