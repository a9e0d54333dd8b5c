import type { Clock } from '../clock';
import type { KeyKind } from '../keys/format';
import type { EnvScope } from '../store/scope';
import type { IdTokenVerifier } from './idTokens';
import { PolicyCache } from './identityPolicy';
import { VelocityWindow } from './velocity';

/** What the identity services are given: typed inputs and these ports, never the HTTP request. */
export interface IdentityPorts {
  /** The key's project and environment partition. */
  scope: EnvScope;
  clock: Clock;
  idTokens: IdTokenVerifier;
  memory: IdentityMemory;
}

/** Who calls: the request id (for logs) and the kind of key presented. */
export interface IdentityCaller {
  requestId: string;
  keyKind: KeyKind;
}

/** Per-process state of the identity services (one per Deps, i.e. per process in production). */
export interface IdentityMemory {
  velocity: VelocityWindow;
  policy: PolicyCache;
}

const memories = new WeakMap<object, IdentityMemory>();

/** The identity services' per-process state of these deps (routes and background tasks share it). */
export function identityMemory(deps: object): IdentityMemory {
  let memory = memories.get(deps);
  if (!memory) {
    memory = { velocity: new VelocityWindow(), policy: new PolicyCache() };
    memories.set(deps, memory);
  }
  return memory;
}
