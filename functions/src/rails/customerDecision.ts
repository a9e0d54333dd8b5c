import { alreadyDecided, type RailDecision } from './decision';
import { RailCustomerMoved, type RailCustomer, type RailResolution } from './customers';

/**
 * A decision about the customer a purchase resolves to (rails/customers.ts). The usual
 * resolution is one direct read (the identifiers' index entries, with the event's audit entry)
 * whose result the decision's transaction confirms; when the transaction found the identifiers
 * or the customer changed since (RailCustomerMoved: it wrote nothing), the customer is resolved
 * again through the identity repository's link transaction and the decision runs with that.
 * An event found audited by that read is a duplicate, answered without a transaction.
 */
export async function decideForRailCustomer(
  resolve: (relink: boolean) => Promise<RailResolution>,
  decide: (customer: RailCustomer | null) => Promise<RailDecision>,
): Promise<RailDecision> {
  const first = await resolve(false);
  if (first.audited) return alreadyDecided(first.audited);
  try {
    return await decide(first.customer);
  } catch (err) {
    if (!(err instanceof RailCustomerMoved)) throw err;
  }
  return decide((await resolve(true)).customer);
}
