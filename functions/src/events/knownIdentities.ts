import type { Hint } from '../identity/link';
import { identityDocId, type CustomerRecord, type IdentityIndexEntry } from '../customers/model';
import { customerRef, identityRef } from '../customers/refs';
import type { EnvScope } from '../store/scope';
import type { IdentityHints } from './model';
import { splitGroups } from '../store/converters';

/**
 * What the identity index already says about the hints of one task's events, read in two
 * round trips (identity entries with the claimed customers, then the customers the entries point
 * at). Lets resolution skip the `linkHints` transaction when every hint of an event is already
 * linked to one active customer, which is what `linkHints` itself would answer there, without
 * writing anything. Everything else goes through `linkHints`.
 */
export class KnownIdentities {
  private constructor(
    private readonly entries: Map<string, IdentityIndexEntry>,
    private readonly activeCustomers: Map<string, CustomerRecord>,
  ) {}

  static async read(scope: EnvScope, hintSets: IdentityHints[]): Promise<KnownIdentities> {
    const hints = new Map<string, Hint>();
    const claimed = new Set<string>();
    for (const set of hintSets) {
      if (set.developerUserId) hints.set(identityDocId('developer', set.developerUserId), { kind: 'developer', id: set.developerUserId });
      if (set.anonymousId) hints.set(identityDocId('anonymous', set.anonymousId), { kind: 'anonymous', id: set.anonymousId });
      if (set.serviceCustomerId) claimed.add(set.serviceCustomerId);
    }
    const hintList = [...hints.entries()];
    const claimedList = [...claimed];
    const groups = [hintList.map(([, h]) => identityRef(scope, h.kind, h.id)), claimedList.map((id) => customerRef(scope, id))] as const;
    const [entrySnaps, claimedSnaps] = splitGroups(groups, await scope.getAll(...groups[0], ...groups[1]));
    const entries = new Map<string, IdentityIndexEntry>();
    hintList.forEach(([key], i) => {
      const entry = entrySnaps[i].data();
      if (entry) entries.set(key, entry);
    });
    const customers = new Map<string, CustomerRecord>();
    const keep = (record: CustomerRecord | undefined) => {
      if (record && record.status === 'active') customers.set(record.customerId, record);
    };
    claimedSnaps.forEach((snapshot) => keep(snapshot.data()));
    const pointedAt = [...new Set([...entries.values()].map((e) => e.customerId))].filter((id) => !claimed.has(id));
    const pointed = await scope.getAll(...pointedAt.map((id) => customerRef(scope, id)));
    pointed.forEach((snapshot) => keep(snapshot.data()));
    return new KnownIdentities(entries, customers);
  }

  /** The active customer a `serviceCustomerId` hint names, if any. */
  activeCustomer(customerId: string): CustomerRecord | null {
    return this.activeCustomers.get(customerId) ?? null;
  }

  /** The customer when every hint is already linked to the same active customer; otherwise null. */
  settledCustomer(hints: Hint[]): string | null {
    let customerId: string | null = null;
    for (const hint of hints) {
      const entry = this.entries.get(identityDocId(hint.kind, hint.id));
      if (!entry || !this.activeCustomers.has(entry.customerId)) return null;
      if (customerId !== null && entry.customerId !== customerId) return null;
      customerId = entry.customerId;
    }
    return customerId;
  }
}
