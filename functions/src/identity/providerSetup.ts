import type { Firestore } from 'firebase-admin/firestore';
import { createLocalJWKSet, type JSONWebKeySet } from 'jose';
import { DomainError } from '../errors/domain';
import { getProject } from '../projects/repository';
import { identityProviderRef, type IdentityProviderConfig } from './providerConfig';

/** Members that only private or symmetric keys carry: a provider's JWKS must hold none of them. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth', 'priv'];

export interface ProviderInput {
  issuer: string;
  audience: string;
  jwksUri?: string;
  /** JSON text of a JWKS (read from `--jwks-file`). */
  jwksText?: string;
}

/** Validates and stores a project's identity provider (`tessera identity-provider set`). */
export async function setIdentityProvider(db: Firestore, projectId: string, input: ProviderInput, now: number): Promise<IdentityProviderConfig> {
  await getProject(db, projectId);
  if (!input.issuer.trim()) throw new DomainError('invalid_argument', '--issuer must not be empty.');
  if (!input.audience.trim()) throw new DomainError('invalid_argument', '--audience must not be empty.');
  if ((input.jwksUri === undefined) === (input.jwksText === undefined)) {
    throw new DomainError('invalid_argument', 'Give exactly one of --jwks-uri or --jwks-file.');
  }
  const provider = {
    issuer: input.issuer,
    audience: input.audience,
    jwksUri: input.jwksUri === undefined ? null : checkJwksUri(input.jwksUri),
    jwks: input.jwksText === undefined ? null : checkJwks(input.jwksText),
  };
  const ref = identityProviderRef(db, projectId);
  // Replacing the provider keeps the project's policy as it was.
  return db.runTransaction(async (tx) => {
    const current = await tx.get(ref);
    const config: IdentityProviderConfig = { ...provider, requireVerifiedIdentity: current.data()?.requireVerifiedIdentity === true, updatedAt: now };
    tx.set(ref, config);
    return config;
  });
}

/**
 * Switches the project's require-verified-identity policy (`tessera identity-provider policy`,
 * identityPolicy.ts). Switching it on needs a provider: without one no identity is ever
 * verified, and the setting would silently do nothing. Instances apply a change within 60 s.
 */
export async function setIdentityPolicy(db: Firestore, projectId: string, requireVerifiedIdentity: boolean, now: number): Promise<{ requireVerifiedIdentity: boolean; updatedAt: number }> {
  await getProject(db, projectId);
  const ref = identityProviderRef(db, projectId);
  return db.runTransaction(async (tx) => {
    const current = await tx.get(ref);
    if (!current.exists) {
      if (requireVerifiedIdentity) throw new DomainError('conflict', 'The project has no identity provider: run `identity-provider set` first, then switch the policy on.');
      return { requireVerifiedIdentity: false, updatedAt: now };
    }
    tx.update(ref, { requireVerifiedIdentity, updatedAt: now });
    return { requireVerifiedIdentity, updatedAt: now };
  });
}

function checkJwksUri(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new DomainError('invalid_argument', '--jwks-uri must be an absolute URL.');
  }
  const local = url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname === '[::1]';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local)) {
    throw new DomainError('invalid_argument', '--jwks-uri must use https (plain http only for a local provider on 127.0.0.1 or localhost).');
  }
  return url.href;
}

function checkJwks(text: string): string {
  let jwks: JSONWebKeySet;
  try {
    jwks = JSON.parse(text) as JSONWebKeySet;
  } catch {
    throw new DomainError('invalid_argument', 'The --jwks-file is not valid JSON.');
  }
  if (!jwks || !Array.isArray(jwks.keys) || jwks.keys.length === 0) throw new DomainError('invalid_argument', 'The --jwks-file must be a JSON Web Key Set: {"keys": [...]} with at least one key.');
  for (const key of jwks.keys) {
    if (PRIVATE_MEMBERS.some((member) => member in key)) throw new DomainError('invalid_argument', 'The --jwks-file holds a private or symmetric key; give the public keys only.');
  }
  try {
    createLocalJWKSet(jwks);
  } catch (err) {
    throw new DomainError('invalid_argument', `The --jwks-file is not a usable JWKS: ${(err as Error).message}`);
  }
  return JSON.stringify(jwks);
}
