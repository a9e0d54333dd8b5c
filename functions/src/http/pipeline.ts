import express, { type Express, type Request, type Response } from 'express';
import { isWireEnv } from '../store/env';
import { RoundTripCounter, withRoundTripCounter } from '../store/roundTrips';
import { authorise, requireScope } from './auth';
import type { HttpMethod } from './methods';
import type { PipelineDeps } from './deps';
import { parseJsonBody, readRawBody } from './body';
import { answerPreflight, setResponseCors } from './cors';
import { ApiError, asApiError, toErrorBody } from './errors';
import { logs } from './logs';
import { canonicalPath, RouteTable } from './paths';
import { enforceRateLimit } from './rateLimit';
import { newRequestId } from './requestId';
import { parseQueryString } from './urlParts';
import { DEFAULT_BODY_LIMIT, type AuthContext, type CompiledRoute, type Reply, type RequestContext } from './route';
import type { EnvScope } from '../store/scope';

/**
 * The one request pipeline every endpoint group runs, in the spec's verification order:
 * request id → CORS / preflight → path normalisation → route and its parameters (strict URL
 * decoding) → key extraction and lookup → platform lock → the route's scope → rate limit (all
 * from the headers: nothing unauthenticated reads a body) → body limit, JSON parsing and the
 * request-text rules (UTF-8, well-formed Unicode, nesting; README.md; not for `rawBody` routes)
 * → envelope environment → query (strict URL decoding) and validation → handler → error envelope. The Express app it returns is what the functions export and what
 * the local runner mounts.
 */
export function createApiApp<D extends PipelineDeps>(routes: readonly CompiledRoute<D>[], deps: D, options: PipelineOptions = {}): Express {
  const table = new RouteTable(routes);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const serve = (req: Request, res: Response): void => {
    // Store round trips are counted at the store edge into this request's counter (its async context).
    const roundTrips = new RoundTripCounter();
    void withRoundTripCounter(roundTrips, () => handle(table, deps, req, res, roundTrips, options));
  };
  app.use(serve);
  return app;
}

export interface PipelineOptions {
  /**
   * Called with every handler's reply before it is sent; a throw answers `500`. Only the tests
   * pass one (test/support/responseCheck.ts checks the reply against the route's `response`
   * schema): the deployed request path validates no response.
   */
  checkResponse?: (route: CompiledRoute, reply: Reply) => void;
}

async function handle(table: RouteTable, deps: PipelineDeps, req: Request, res: Response, roundTrips: RoundTripCounter, options: PipelineOptions): Promise<void> {
  const requestId = newRequestId();
  res.set('X-Request-Id', requestId);
  const path = canonicalPath(req.path);
  let scope: EnvScope | null = null;
  let bodyRead = false;
  try {
    if (req.method === 'OPTIONS') return answerPreflight(req, res);
    setResponseCors(req, res);
    const match = table.match(req.method, path);
    if (!match) throw new ApiError('missing_required_param', `Unknown route: ${req.method} ${path}.`);
    const { route, params } = match;

    // Who is calling is decided from the headers alone, before a byte of the body is read or
    // parsed: an unauthenticated request costs no body reading, parsing or memory.
    let auth: AuthContext | null = null;
    let operator: unknown = null;
    if (route.key === 'operator') {
      ({ operator, scope } = await authoriseOperator(deps, req, route, params, requestId));
    } else if (route.key !== 'none') {
      ({ auth, scope } = await authorise(req, route, deps));
      requireScope(route, auth);
      if (route.rateLimit) await enforceRateLimit(deps, auth, route.rateLimit);
    }

    bodyRead = true;
    const rawBody = req.method === 'GET' ? Buffer.alloc(0) : await readRawBody(req, route.maxBodyBytes ?? DEFAULT_BODY_LIMIT);
    const parsedBody = route.method === 'GET' ? {} : route.rawBody ? undefined : parseJsonBody(rawBody, req.get('content-type'));
    if (auth) checkEnvelopeEnvironment(parsedBody, auth);
    route.beforeValidation?.({ body: parsedBody, header: (name) => req.get(name), deps });
    const rawQuery = parseQueryString(req.originalUrl ?? req.url);
    const query = route.validateQuery ? route.validateQuery(rawQuery) : rawQuery;
    const body = route.validateBody ? route.validateBody(parsedBody) : parsedBody;
    // After the body, where the handlers checked their path parameters before (same order of errors).
    const validParams = route.validateParams ? route.validateParams(params) : params;

    const ctx: RequestContext<unknown, unknown, unknown, any> = {
      requestId,
      method: route.method as HttpMethod,
      path,
      params: validParams,
      query,
      body,
      rawBody,
      header: (name) => req.get(name),
      deps,
      get auth(): AuthContext {
        if (!auth) throw new Error(`route ${route.path} takes no key; ctx.auth is unavailable`);
        return auth;
      },
      get scope(): EnvScope {
        if (!scope) throw new Error(`route ${route.path} takes no key; ctx.scope is unavailable`);
        return scope;
      },
      get operator(): unknown {
        if (!operator) throw new Error(`route ${route.path} is not an operator route; ctx.operator is unavailable`);
        return operator;
      },
    };
    const reply = await route.handler(ctx);
    options.checkResponse?.(route, reply);
    // Nothing leaves before the key is confirmed fresh (a cached key rides on the first read).
    if (scope) await scope.ensureKeyVerified();
    send(res, deps, roundTrips, reply, route.cacheControl);
  } catch (err) {
    const error = await keyErrorFirst(scope, asApiError(err));
    if (error.code === 'internal_error') {
      logs.internalError(requestId, req.method, path, error.internal ?? error.message, err instanceof Error ? err.stack : undefined);
    } else {
      logs.requestRejected(requestId, req.method, path, error.status, error.code, error.internal);
    }
    if (res.headersSent) return;
    // A body never read is discarded as it arrives (never buffered), so the client can read the answer.
    if (!bodyRead) req.resume();
    if (error.headers) res.set(error.headers);
    if (deps.settings.exposeRoundTrips) res.set('X-Tessera-Round-Trips', String(roundTrips.count));
    res.status(error.status).set('Cache-Control', 'no-store').json(toErrorBody(error, requestId));
  }
}

/**
 * A request that fails (validation, a handler error) before its cached key was re-read still
 * owes the key check: a revoked key gets its 401, not a 400 about its body.
 */
async function keyErrorFirst(scope: EnvScope | null, error: ApiError): Promise<ApiError> {
  if (!scope || error.type === 'authentication_error') return error;
  try {
    await scope.ensureKeyVerified();
    return error;
  } catch (keyError) {
    return asApiError(keyError);
  }
}

function send(res: Response, deps: PipelineDeps, roundTrips: RoundTripCounter, reply: Reply, cacheControl: string | undefined): void {
  if (cacheControl) res.set('Cache-Control', cacheControl);
  if (reply.headers) res.set(reply.headers);
  if (deps.settings.exposeRoundTrips) res.set({ 'X-Tessera-Round-Trips': String(roundTrips.count), 'X-Tessera-Documents-Read': String(roundTrips.documents) });
  res.status(reply.status ?? 200);
  if (reply.status === 204) res.end();
  else res.json(reply.body);
}

/** A body that declares an environment must declare the key's (the key decides, never the client). */
function checkEnvelopeEnvironment(body: unknown, auth: AuthContext): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  const declared = (body as Record<string, unknown>).environment;
  if (isWireEnv(declared) && declared !== auth.wireEnv) {
    throw new ApiError('env_mismatch', `This ${auth.wireEnv} key cannot be used for ${declared} data.`);
  }
}

/**
 * Operator routes (the dashboard) authenticate a signed-in operator instead of an API key, through
 * the operator gate (http/operatorGate.ts); on routes inside a project (`:projectId/:env`) the gate
 * checks the role and the request's scope is that project's partition of the path's environment.
 */
function authoriseOperator(deps: PipelineDeps, req: Request, route: CompiledRoute, params: Record<string, string>, requestId: string): Promise<{ operator: unknown; scope: EnvScope | null }> {
  return deps.operators.authorise({
    requestId,
    method: route.method,
    authorization: req.get('authorization'),
    projectId: params.projectId,
    env: params.env,
    needs: route.operatorRole ?? (route.method === 'GET' ? 'viewer' : 'admin'),
  });
}
