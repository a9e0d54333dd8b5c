import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { RailEdges } from '../edges';
import type { GoogleRailConfig } from '../config';

/**
 * The OIDC token Pub/Sub attaches to a push (`Authorization: Bearer …`), verified with jose
 * against Google's signing keys: issuer, the audience configured for the push subscription,
 * expiry, and (when configured) the push subscription's service account as a verified email.
 */
export class PushTokenRejected extends Error {
  constructor(readonly reason: string) {
    super(`push token rejected: ${reason}`);
    this.name = 'PushTokenRejected';
  }
}

const keySets = new Map<string, JWTVerifyGetKey>();

function keySet(url: string): JWTVerifyGetKey {
  let set = keySets.get(url);
  if (!set) {
    set = createRemoteJWKSet(new URL(url));
    keySets.set(url, set);
  }
  return set;
}

export async function verifyPushToken(edges: RailEdges['google'], config: GoogleRailConfig, authorization: string | undefined, now: number): Promise<void> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match) throw new PushTokenRejected('no bearer token');
  if (!config.pushAudience) throw new PushTokenRejected('no push audience configured');
  let payload;
  try {
    ({ payload } = await jwtVerify(match[1], keySet(edges.pushJwksUrl), {
      issuer: edges.pushIssuers,
      audience: config.pushAudience,
      algorithms: ['RS256'],
      currentDate: new Date(now),
      requiredClaims: ['exp', 'iat'],
    }));
  } catch (err) {
    throw new PushTokenRejected(err instanceof Error ? (err as { code?: string }).code ?? err.message : 'invalid token');
  }
  if (config.pushServiceAccountEmail) {
    if (payload.email !== config.pushServiceAccountEmail || payload.email_verified !== true) throw new PushTokenRejected('unexpected push service account');
  }
}
