import type { DocumentReference, DocumentSnapshot } from 'firebase-admin/firestore';
import type { EnvScope } from '../store/scope';
import { PROVIDER_CONFIG_TTL_MS } from './idTokens';
import type { IdentityIndexEntry } from '../customers/model';
import { IDENTITY_PROVIDER_SETTING, type IdentityProviderConfig } from './providerConfig';
import { storedRecord } from '../store/converters';
import { BoundedMap } from '../boundedMap';

/**
 * The project's identity policy, stored beside its identity provider (one per project, both
 * environments: verified identities come from that provider): `requireVerifiedIdentity`, off by
 * default, set by `tessera identity-provider policy`. When on, a publishable key cannot ride on a
 * verified identity with a self-asserted one:
 * - identify without a valid idToken cannot link a new device to a userId whose identity is
 *   verified (`401 identity_token_invalid`; link.ts decides inside its transaction, from the
 *   user's index entry it reads anyway);
 * - an entitlement read by such a userId answers as for an unknown customer (SDKs read by the
 *   `cdcust_` id identify returned).
 *
 * Cost: the setting is cached per instance for PROVIDER_CONFIG_TTL_MS (60 s, like the provider
 * config the token verifier caches). When the cache is stale, the settings document rides along
 * with the request's first read (the API-key re-check of identify, the index-entry read of the
 * entitlement read): one more document in a `getAll`, no extra round trip. Only a cold key cache
 * on identify (the key was just read fresh, so no re-check is pending) makes it a round trip of
 * its own, at most once a minute per instance and project.
 */
export interface IdentityPolicy {
  requireVerifiedIdentity: boolean;
}

const MAX_PROJECTS = 10_000;

/** One per process (identity/ports.ts keeps it with the Deps). */
export class PolicyCache {
  private readonly entries = new BoundedMap<string, { policy: IdentityPolicy; readAt: number }>(MAX_PROJECTS);

  fresh(projectId: string, now: number): IdentityPolicy | null {
    const cached = this.entries.get(projectId);
    return cached && now >= cached.readAt && now - cached.readAt < PROVIDER_CONFIG_TTL_MS ? cached.policy : null;
  }

  remember(projectId: string, snapshot: DocumentSnapshot<StoredPolicy>, now: number): IdentityPolicy {
    const config = snapshot.data() ?? null;
    const policy: IdentityPolicy = { requireVerifiedIdentity: config?.requireVerifiedIdentity === true };
    this.entries.set(projectId, { policy, readAt: now });
    return policy;
  }
}

/** Partial: only `requireVerifiedIdentity` is read, and a project may have no provider yet. */
type StoredPolicy = Partial<IdentityProviderConfig>;
const policyConverter = storedRecord<StoredPolicy>();
const policyRef = (scope: EnvScope) => scope.projectSettingRef(IDENTITY_PROVIDER_SETTING).withConverter(policyConverter);

/** The key's project's policy: cached, else read (carrying the pending API-key re-check). */
export async function identityPolicy(scope: EnvScope, cache: PolicyCache, now: number): Promise<IdentityPolicy> {
  const cached = cache.fresh(scope.projectId, now);
  if (cached) return cached;
  const [snapshot] = await scope.getAll(policyRef(scope));
  return cache.remember(scope.projectId, snapshot, now);
}

/**
 * For a read that starts with a user's index entry anyway: `alongside` is what to add to that
 * read (the settings document when the cache is stale, else nothing), and `admits` tells whether
 * the entry may be answered from. A verified user's entry is hidden under the policy.
 */
export function verifiedUserGuard(scope: EnvScope, cache: PolicyCache, now: number): { alongside: DocumentReference<StoredPolicy>[]; admits(entry: IdentityIndexEntry, alongside: DocumentSnapshot<StoredPolicy>[]): boolean } {
  const cached = cache.fresh(scope.projectId, now);
  return {
    alongside: cached ? [] : [policyRef(scope)],
    admits(entry, snapshots) {
      const policy = cached ?? cache.remember(scope.projectId, snapshots[0], now);
      return !(policy.requireVerifiedIdentity && entry.assurance === 'verified');
    },
  };
}
