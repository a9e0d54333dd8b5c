import type { RequestContext } from '../../http/route';
import { identityMemory, type IdentityCaller, type IdentityPorts } from '../ports';

/**
 * The route files' side of the identity services' ports: what an authenticated request gives
 * them (its scope, the process's clock, token verifier and memory) and who calls. The services
 * take the plain ports (../ports.ts) and never see the request.
 */
export function identityPorts(ctx: RequestContext<unknown, unknown>): { ports: IdentityPorts; caller: IdentityCaller } {
  const memory = identityMemory(ctx.deps);
  return {
    ports: { scope: ctx.scope, clock: ctx.deps.clock, idTokens: ctx.deps.idTokens, memory },
    caller: { requestId: ctx.requestId, keyKind: ctx.auth.kind },
  };
}
