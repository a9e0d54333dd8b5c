import type { Request } from 'express';
import type { PipelineDeps } from './deps';
import { parseKey, type ParsedKey } from '../keys/format';
import { toWireEnv } from '../store/env';
import type { EnvScope } from '../store/scope';
import { ApiError } from './errors';
import { platformLockError } from './platformLock';
import type { AuthContext, CompiledRoute } from './route';

/** Verification order steps 1–3: extract the key, look it up, enforce the platform lock. */

export function extractKey(req: Request): ParsedKey {
  const authorization = req.get('authorization');
  const headerKey = req.get('service-api-key');
  let bearer: string | undefined;
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) throw new ApiError('missing_api_key', 'The Authorization header must be `Bearer <API key>`.');
    bearer = match[1];
  }
  const presented = bearer ?? headerKey?.trim();
  if (!presented) throw new ApiError('missing_api_key', 'No API key: send `Authorization: Bearer <key>` or `Service-Api-Key: <key>`.');
  if (bearer !== undefined && headerKey !== undefined && headerKey.trim() !== bearer) {
    throw new ApiError('missing_api_key', 'Authorization and Service-Api-Key carry different keys; send one.');
  }
  if (presented.startsWith('cd_wk_')) throw new ApiError('invalid_api_key', 'Workspace keys cannot call this API.');
  const parsed = parseKey(presented);
  if (!parsed) throw new ApiError('missing_api_key', 'The API key is malformed.');
  return parsed;
}

export interface Authorised {
  auth: AuthContext;
  scope: EnvScope;
}

export async function authorise(req: Request, route: CompiledRoute, deps: PipelineDeps): Promise<Authorised> {
  const key = extractKey(req);
  if (route.key === 'secret' && key.kind !== 'secret') {
    throw new ApiError('invalid_api_key', 'This endpoint needs a secret key (cd_sk_…); publishable keys are not accepted.');
  }
  if (route.key === 'publishable' && key.kind !== 'publishable') {
    throw new ApiError('invalid_api_key', 'This endpoint needs a publishable key (cd_pub_…); secret keys are not accepted.');
  }
  let { record, gate } = await deps.keys.authenticate(key);
  const lockInput = {
    origin: req.get('origin'),
    bundleId: req.get('x-service-bundle-id'),
    packageName: req.get('x-service-package-name'),
    allowEmptyWebAllowlist: route.allowEmptyWebAllowlist ?? false,
  };
  let lockError = platformLockError(record, lockInput);
  if (lockError && gate) {
    // The cached record may predate a change of the allowlist: decide on a fresh read.
    record = await deps.keys.refresh(key);
    gate = null;
    lockError = platformLockError(record, lockInput);
  }
  if (lockError) throw lockError;
  const auth: AuthContext = {
    keyId: record.keyId,
    kind: record.kind,
    projectId: record.projectId,
    appId: record.appId,
    env: record.env,
    wireEnv: toWireEnv(record.env),
    platform: record.platform,
    scopes: record.scopes,
    record,
    key,
  };
  return { auth, scope: deps.keys.openScope(record, gate) };
}

/**
 * The route's scope, on the key's scope map (fixed at creation, so the cached binding is
 * enough): checked before any data is read. A key revoked meanwhile still gets its 401 (the
 * pipeline re-checks the key before answering any error).
 */
export function requireScope(route: CompiledRoute, auth: AuthContext): void {
  if (!route.scope) return;
  if (auth.kind !== 'secret' || !auth.scopes.includes(route.scope)) {
    throw new ApiError('insufficient_scope', `This key lacks the \`${route.scope}\` scope. Scopes are fixed when a secret key is created; create a key with it.`, {
      internal: `key ${auth.keyId} scopes [${auth.scopes.join(', ')}]`,
    });
  }
}
