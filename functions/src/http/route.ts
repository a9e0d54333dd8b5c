import type { KeyKind, ParsedKey } from '../keys/format';
import type { Scope } from '../keys/scopes';
import type { KeyRecord } from '../keys/record';
import type { Platform } from '../wire/vocabulary';
import type { BucketName } from '../ratelimit/buckets';
import type { Env, WireEnv } from '../store/env';
import type { EnvScope } from '../store/scope';
import type { JsonSchema, ResponseSchemas } from '../wire/schema';
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
 * `Body`, `Query` and `Params` are the types wire/ derives from the route's schemas.
 */
export interface RequestContext<Body = unknown, Query = Record<string, string>, Params = Record<string, unknown>, Ports = {}> {
  requestId: string;
  method: HttpMethod;
  /** Canonical path (`/v1/...`), after alias resolution. */
  path: string;
  /** Path parameters, validated by the route's `params` schema when it has one. */
  params: Params;
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

export interface Reply<Response = unknown> {
  status?: number;
  body: Response;
  headers?: Record<string, string>;
}

/**
 * A route: how it is reached and authorised, the ports its handler uses, and its wire schemas
 * (wire/: body, query, path parameters and the 2xx response, as plain JSON Schema). `Body`,
 * `Query`, `Params` and `Response` are the types wire/ derives from those schemas
 * (`FromSchema`), so the handler reads what is validated and returns what the response schema
 * describes.
 */
export interface RouteSpec<Body = unknown, Query = Record<string, string>, Params = Record<string, unknown>, Response = unknown, Ports = {}> {
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
  /** The body's schema (validated in the pipeline, before the handler). */
  body?: JsonSchema;
  query?: JsonSchema;
  /** The path parameters' schema: the same validation, messages and envelope as body fields. */
  params?: JsonSchema;
  /**
   * The 2xx body's schema, or one per status (`{ 200: …, 202: … }`). Never checked in the
   * deployed request path: the tests' pipeline checks every answer against it (test/support).
   */
  response?: ResponseSchemas;
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
  handler: (ctx: RequestContext<Body, Query, Params, Ports>) => Promise<Reply<Response>>;
}

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * A route with its validators compiled once, at module load. `Ports` is kept as a type only:
 * app/ mounts routes as `CompiledRoute<Deps>`, which compiles only if its Deps has every port
 * each route's handler names.
 */
export interface CompiledRoute<Ports = any> extends RouteSpec<any, any, any, any, any> {
  validateBody: Validator<unknown> | null;
  validateQuery: Validator<unknown> | null;
  validateParams: Validator<unknown> | null;
  readonly needs?: (deps: Ports) => void;
}

export function route<Body = unknown, Query = Record<string, string>, Params = Record<string, unknown>, Response = unknown, Ports = {}>(
  spec: RouteSpec<Body, Query, Params, Response, Ports>,
): CompiledRoute<Ports> {
  return {
    ...(spec as RouteSpec<any, any, any, any, any>),
    validateBody: spec.body ? compileSchema(spec.body) : null,
    validateQuery: spec.query ? compileSchema(spec.query) : null,
    validateParams: spec.params ? compileSchema(spec.params) : null,
  };
}
