import type { Firestore } from 'firebase-admin/firestore';
import { projectRef } from '../projects/paths';
import { storedRecord } from '../store/converters';

/**
 * The developer's identity provider, one per project (both environments), at
 * `projects/{projectId}/settings/identityProvider`; set by `tessera identity-provider set`.
 * Public material only: issuer, audience, and either the JWKS URL or the JWKS itself (public
 * keys, stored as JSON text, for providers whose keys are distributed as a file).
 */
export interface IdentityProviderConfig {
  issuer: string;
  audience: string;
  jwksUri: string | null;
  /** JSON text of a JSON Web Key Set (public keys only). */
  jwks: string | null;
  /**
   * Off unless set (`tessera identity-provider policy`): a publishable key without a valid
   * idToken cannot link a new device to a verified user nor read that user's entitlements by
   * userId (identityPolicy.ts). Kept when the provider itself is replaced.
   */
  requireVerifiedIdentity?: boolean;
  updatedAt: number;
}

/** Its id among the project's settings (`EnvScope.projectSettingRef`). */
export const IDENTITY_PROVIDER_SETTING = 'identityProvider';

export const identityProviderConverter = storedRecord<IdentityProviderConfig>();

export const identityProviderRef = (db: Firestore, projectId: string) =>
  projectRef(db, projectId).collection('settings').doc(IDENTITY_PROVIDER_SETTING).withConverter(identityProviderConverter);

export async function readIdentityProvider(db: Firestore, projectId: string): Promise<IdentityProviderConfig | null> {
  const snapshot = await identityProviderRef(db, projectId).get();
  return snapshot.data() ?? null;
}
