import type { RequestContext } from '../../http/route';
import type { TaskQueue } from '../../tasks/queue';
import type { IdTokenVerifier } from '../idTokens';
import { identityMemory, type IdentityCaller, type IdentityPorts } from '../ports';

/** What the identity routes use beyond the pipeline: the token verifier, and the queue (forget's erasure). */
export interface IdentityRoutePorts {
  idTokens: IdTokenVerifier;
  tasks: TaskQueue;
}

/** Route files' extraction: the ports and caller of an authenticated request. */
export function identityPorts(ctx: RequestContext<unknown, unknown, IdentityRoutePorts>): { ports: IdentityPorts; caller: IdentityCaller } {
  const memory = identityMemory(ctx.deps);
  return {
    ports: { scope: ctx.scope, clock: ctx.deps.clock, idTokens: ctx.deps.idTokens, memory },
    caller: { requestId: ctx.requestId, keyKind: ctx.auth.kind },
  };
}
