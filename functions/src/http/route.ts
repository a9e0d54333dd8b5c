import type { JSONSchemaType } from 'ajv';
import type { KeyKind, ParsedKey } from '../keys/format';
import type { Scope } from '../keys/scopes';
import type { KeyRecord } from '../keys/record';
import type { Platform } from '../wire/vocabulary';
import type { BucketName } from '../ratelimit/buckets';
import type { Env, WireEnv } from '../store/env';
import type { EnvScope } from '../store/scope';
import type { PipelineDeps } from './deps';
import type { HttpMethod } from './methods';
import type { OperatorGate, OperatorRole } from './operatorGate';
import { compileSchema, type Validator } from './validation';

/**
 * Which keys a route accepts. `none`: public (healthz, versions) or self-verifying (webhooks).
 * `operator`: no API key but a signed-in dashboard operator (dashboard/authenticator.ts).
 */
export type KeyRequirement = 'none' | 'publishable' | 'secret' | 'any' | 'operator';

/** The operator the gate in `Ports` authorised (dashboard/authenticator.ts); `never` on routes without one. */
type OperatorOf<Ports> = Ports extends { operators: OperatorGate<infer Operator> } ? Operator : never;

export interface AuthContext {
  keyId: string;
  kind: KeyKind;
  projectId: string;
  appId: string;
  env: Env;
  wireEnv: WireEnv;
  platform: Platform;
  scopes: readonly string[];
  record: KeyRecord;
  key: ParsedKey;
}

/**
 * `Ports`: what the handler uses beyond the pipeline's own deps (e.g. `{ tasks: TaskQueue }`),
 * named by the route so that the pipeline never needs to know the capabilities' ports.
 */
export interface RequestContext<Body = unknown, Query = Record<string, string>, Ports = {}> {
  requestId: string;
  method: HttpMethod;
  /** Canonical path (`/v1/...`), after alias resolution. */
  path: string;
  params: Record<string, string>;
  query: Query;
  body: Body;
  /** The exact bytes received (webhook signatures are computed over these). */
  rawBody: Buffer;
  header(name: string): string | undefined;
  deps: PipelineDeps & Ports;
  /** The presented key; only on routes that require one. */
  auth: AuthContext;
  /** The key's project and environment partition; only on routes that require a key (or an operator, inside a project). */
  scope: EnvScope;
  /** The signed-in operator; only on `operator` routes. */
  operator: OperatorOf<Ports>;
}

/** What a `beforeValidation` check may look at. */
export interface PreValidationRequest {
  body: unknown;
  header(name: string): string | undefined;
  deps: PipelineDeps;
}

export interface Reply {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface RouteSpec<Body = unknown, Query = Record<string, string>, Ports = {}> {
  method: HttpMethod;
  /** Canonical path with `:param` segments, e.g. `/v1/server/customers/:customerId/grant`. */
  path: string;
  /** Legacy paths served by the same route (e.g. `/v1/identity/alias`). */
  aliases?: string[];
  key: KeyRequirement;
  /**
   * The secret-key scope the route needs (keys/scopes.ts). A key without it is refused
   * `403 insufficient_scope` right after authentication, before any data is read.
   */
  scope?: Scope;
  /** Token bucket charged one token per request, all-or-nothing. */
  rateLimit?: BucketName;
  /** The body's schema, typed by the body it admits (validated in the pipeline, before the handler). */
  body?: JSONSchemaType<Body>;
  query?: JSONSchemaType<Query>;
  /**
   * Checks that the spec orders before validation (the events wire-format floor, whose `426`
   * wins over a `400` for fields an old SDK does not know). Sees the parsed, unvalidated body.
   */
  beforeValidation?: (request: PreValidationRequest) => void;
  /** Largest accepted body in bytes; defaults to DEFAULT_BODY_LIMIT. */
  maxBodyBytes?: number;
  /**
   * Self-verifying routes (rail webhooks, `key: 'none'`): the pipeline reads the bytes within the
   * limit but neither parses nor judges them; `ctx.body` is undefined and the handler parses
   * `ctx.rawBody` once its signature or token verified.
   */
  rawBody?: boolean;
  /** Heartbeat only: a web key with an empty allowlist passes the lock (first-origin learning). */
  allowEmptyWebAllowlist?: boolean;
  /** `Cache-Control` for successful responses. */
  cacheControl?: string;
  /** `operator` routes: the least role needed (default: viewer for GET, admin otherwise). */
  operatorRole?: OperatorRole;
  handler: (ctx: RequestContext<Body, Query, Ports>) => Promise<Reply>;
}

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * A route with its validators compiled once, at module load. `Ports` is kept as a type only:
 * app/ mounts routes as `CompiledRoute<Deps>`, which compiles only if its Deps has every port
 * each route's handler names.
 */
export interface CompiledRoute<Ports = any> extends RouteSpec<any, any, any> {
  validateBody: Validator<unknown> | null;
  validateQuery: Validator<unknown> | null;
  readonly needs?: (deps: Ports) => void;
}

export function route<Body = unknown, Query = Record<string, string>, Ports = {}>(spec: RouteSpec<Body, Query, Ports>): CompiledRoute<Ports> {
  return {
    ...(spec as RouteSpec<any, any, any>),
    validateBody: spec.body ? compileSchema(spec.body) : null,
    validateQuery: spec.query ? compileSchema(spec.query) : null,
  };
}
