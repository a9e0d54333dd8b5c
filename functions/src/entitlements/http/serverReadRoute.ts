import { route } from '../../http/route';
import { customerRef } from '../../customers/refs';
import type { EnvScope } from '../../store/scope';
import { customerIdParamsSchema, serverEntitlementsResponseSchema, type CustomerIdParams, type ServerEntitlementsResponse } from '../../wire/entitlements';
import { requireKnownCustomer } from '../customerIds';
import type { PublicEntitlement } from '../model';
import { projectionRef } from '../projection';
import { toPublicEntitlements } from '../publicShape';

/**
 * `GET /v1/server/customers/{customerId}/entitlements`: any customer of the key's project and
 * environment, in the public read's shape. One round trip: the customer and its projection in
 * one `getAll` (which also carries the key re-check). Unknown customer: `400 invalid_customer`.
 * Like the other secret-key server endpoints it has no token bucket (the spec sets none; the
 * public read's `entitlements` bucket belongs to `GET /v1/entitlements`).
 */
export async function readKnownCustomerEntitlements(scope: EnvScope, customerId: string, now: number): Promise<PublicEntitlement[]> {
  const [customer, projection] = await scope.getAll(customerRef(scope, customerId), projectionRef(scope, customerId));
  requireKnownCustomer(customer, customerId);
  return toPublicEntitlements(projection.data() ?? null, now);
}

export const serverEntitlementsRoute = route<unknown, Record<string, string>, CustomerIdParams, ServerEntitlementsResponse>({
  method: 'GET',
  path: '/v1/server/customers/:customerId/entitlements',
  key: 'secret',
  params: customerIdParamsSchema,
  response: serverEntitlementsResponseSchema,
  cacheControl: 'private, no-store',
  handler: async (ctx) => {
    const { customerId } = ctx.params;
    const data = await readKnownCustomerEntitlements(ctx.scope, customerId, ctx.deps.clock.now());
    return { body: { object: 'list', data, serviceCustomerId: customerId, env: ctx.auth.wireEnv } };
  },
});
