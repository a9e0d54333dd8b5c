import { ERROR_CODES, type ErrorCode } from '../../errors/codes';
import type { CompiledRoute } from '../../http/route';
import type { GroupName } from '../groupNames';
import { routeErrorCodes, routeKey } from './routeErrors';
import { toOpenApiSchema, type JsonSchema } from './schemas';
import { routeSecurity, SECURITY_SCHEMES } from './security';
import { GROUP_TAGS, ROUTE_NOTES, type RouteNote } from './routeNotes';

/**
 * The OpenAPI 3.1 description of every mounted route, built from the group registry: paths,
 * methods, path/query parameters and bodies from the routes' schemas, success responses, the
 * error envelope with each route's codes (routeErrors.ts) and the security schemes
 * (security.ts). Deterministic: the same routes give byte-identical JSON (docs/openapi.json
 * is compared with it in a test).
 */
export type OpenApiDocument = {
  openapi: '3.1.0';
  info: Record<string, unknown>;
  servers: Record<string, unknown>[];
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, unknown>>;
};

export type Operation = {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  deprecated?: boolean;
  security: Record<string, string[]>[];
  parameters?: Record<string, unknown>[];
  requestBody?: Record<string, unknown>;
  responses: Record<string, Record<string, unknown>>;
};

/** The route fields the wire schemas add (branch `wire`): read when a route has them. */
interface WireSchemas {
  params?: JsonSchema;
  /** The 2xx body, or a map of 2xx status → body when a route answers more than one. */
  response?: JsonSchema;
}

const ERROR_REF = '#/components/schemas/ErrorEnvelope';

export function buildOpenApiDocument(groups: Readonly<Record<GroupName, readonly CompiledRoute[]>>, version: string): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const [group, routes] of Object.entries(groups) as [GroupName, readonly CompiledRoute[]][]) {
    for (const route of routes) {
      for (const [path, deprecated] of [[route.path, false] as const, ...(route.aliases ?? []).map((alias) => [alias, true] as const)]) {
        const item = (paths[openApiPath(path)] ??= {});
        item[route.method.toLowerCase()] = operation(route, group, path, deprecated);
      }
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tessera API',
      version,
      summary: 'Entitlements and customer identity across Stripe, the App Store, Google Play and manual grants.',
      description: INFO_DESCRIPTION,
    },
    servers: [
      { url: 'http://127.0.0.1:8787', description: 'The local stack (`npm start`).' },
      { url: 'https://{firebaseProject}.web.app', description: 'Deployed: the Firebase Hosting origin of your project.', variables: { firebaseProject: { default: 'your-firebase-project' } } },
    ],
    tags: (Object.keys(groups) as GroupName[]).map((name) => ({ name, description: GROUP_TAGS[name] })),
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: {
      securitySchemes: SECURITY_SCHEMES,
      schemas: { ErrorEnvelope: ERROR_ENVELOPE },
      headers: HEADERS,
      parameters: PARAMETERS,
    },
  };
}

const INFO_DESCRIPTION = [
  'Generated from the service’s route table (functions/src/app/openapi). Every path is also served without the `/v1` prefix.',
  'Every response carries `X-Request-Id`, equal to an error body’s `request_id`. `OPTIONS` on any path is a permissive CORS preflight (`204`).',
  'Errors use one envelope, `{ error: { type, code, message, request_id } }`; each operation lists the codes it may answer.',
].join('\n\n');

/** `/v1/server/customers/:customerId/grant` → `/v1/server/customers/{customerId}/grant`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** `POST /v1/server/customers/:customerId/grant` → `postServerCustomersCustomerIdGrant`. */
export function operationId(method: string, path: string): string {
  const words = path.split(/[^A-Za-z0-9]+/).filter((word) => word && word !== 'v1');
  return method.toLowerCase() + words.map((word) => word[0].toUpperCase() + word.slice(1)).join('');
}

function operation(route: CompiledRoute, group: GroupName, path: string, deprecated: boolean): Operation {
  const note: RouteNote = ROUTE_NOTES[routeKey(route)] ?? { summary: `${route.method} ${route.path}` };
  // A publishable key's platform lock reads the app's own header (web keys: the browser's `Origin`).
  const headers = [...(route.key === 'publishable' || route.key === 'any' ? LOCK_HEADERS : []), ...(note.headers ?? [])];
  const parameters = [...pathParameters(route, path), ...queryParameters(route), ...headers.map((name) => ({ $ref: `#/components/parameters/${name}` }))];
  return {
    operationId: operationId(route.method, path),
    summary: note.summary,
    ...(deprecated ? { description: `Legacy alias of \`${route.method} ${openApiPath(route.path)}\`.`, deprecated: true } : note.description ? { description: note.description } : {}),
    tags: [group],
    security: routeSecurity(route),
    ...(parameters.length ? { parameters } : {}),
    ...requestBody(route, note),
    responses: { ...successResponses(route, note), ...errorResponses(route) },
  };
}

function pathParameters(route: CompiledRoute, path: string): Record<string, unknown>[] {
  const schemas = (route as WireSchemas).params?.properties as Record<string, unknown> | undefined;
  return [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: schemas?.[name] ? toOpenApiSchema(schemas[name]) : { type: 'string' },
  }));
}

function queryParameters(route: CompiledRoute): Record<string, unknown>[] {
  const schema = route.query as JsonSchema | undefined;
  if (!schema) return [];
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries((schema.properties ?? {}) as Record<string, unknown>).map(([name, property]) => ({
    name,
    in: 'query',
    required: required.has(name),
    schema: toOpenApiSchema(property),
  }));
}

function requestBody(route: CompiledRoute, note: RouteNote): { requestBody?: Record<string, unknown> } {
  if (route.method === 'GET') return {};
  if (route.rawBody) {
    // Self-verifying: the rail's own format, judged only after its signature or token verified.
    return { requestBody: { required: true, description: note.body ?? 'The rail’s notification, verified over the raw bytes.', content: { 'application/json': { schema: { type: 'object' } } } } };
  }
  if (!route.body) return {};
  return { requestBody: { required: true, content: { 'application/json': { schema: toOpenApiSchema(route.body) } } } };
}

const STATUS_TEXT: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No content' };

function successResponses(route: CompiledRoute, note: RouteNote): Record<string, Record<string, unknown>> {
  const declared = (route as WireSchemas).response;
  const byStatus: [number, JsonSchema | undefined][] =
    declared && Object.keys(declared).length > 0 && Object.keys(declared).every((key) => /^2\d\d$/.test(key))
      ? Object.entries(declared).map(([status, schema]) => [Number(status), schema as JsonSchema])
      : [[note.status ?? 200, declared]];
  return Object.fromEntries(
    byStatus.map(([status, schema]) => {
      const headers: Record<string, unknown> = { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } };
      if (route.cacheControl) headers['Cache-Control'] = { description: `\`${route.cacheControl}\``, schema: { type: 'string', const: route.cacheControl } };
      for (const name of note.responseHeaders ?? []) headers[name] = { $ref: `#/components/headers/${name.replace(/-/g, '')}` };
      const content = status === 204 ? {} : { content: { 'application/json': { schema: schema ? toOpenApiSchema(schema) : { type: 'object' } } } };
      return [String(status), { description: note.response ?? STATUS_TEXT[status] ?? 'Success', headers, ...content }];
    }),
  );
}

function errorResponses(route: CompiledRoute): Record<string, Record<string, unknown>> {
  const responses: Record<string, Record<string, unknown>> = {};
  for (const [status, codes] of routeErrorCodes(route)) {
    const headers: Record<string, unknown> = { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } };
    if (status === 429) Object.assign(headers, { 'Retry-After': { $ref: '#/components/headers/RetryAfter' }, 'X-Service-Sample-Rate': { $ref: '#/components/headers/XServiceSampleRate' } });
    responses[String(status)] = {
      description: codes.map((code) => `\`${code}\``).join(', '),
      headers,
      content: { 'application/json': { schema: { allOf: [{ $ref: ERROR_REF }, { properties: { error: { properties: { code: { enum: codes } } } } }] } } },
    };
  }
  return responses;
}

const ERROR_ENVELOPE = {
  type: 'object',
  description: 'Every error: its type and code from one closed set, a message for people, and the request id.',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: {
      type: 'object',
      required: ['type', 'code', 'message', 'request_id'],
      additionalProperties: false,
      properties: {
        type: { type: 'string', enum: [...new Set(Object.values(ERROR_CODES).map((entry) => entry.type))] },
        code: { type: 'string', enum: Object.keys(ERROR_CODES) as ErrorCode[] },
        message: { type: 'string' },
        request_id: { type: 'string', pattern: '^req_' },
        minVersion: { type: 'string', description: '`426` only: the SDK version floor.' },
        surface: { type: 'string', enum: ['web', 'node', 'swift', 'react-native'], description: '`426` only: the SDK surface.' },
      },
    },
  },
};

const LOCK_HEADERS = ['XServiceBundleId', 'XServicePackageName'] as const;

const PARAMETERS = {
  XServiceBundleId: { name: 'X-Service-Bundle-Id', in: 'header', required: false, description: 'iOS keys: the app’s bundle id, checked against the key’s lock.', schema: { type: 'string' } },
  XServicePackageName: { name: 'X-Service-Package-Name', in: 'header', required: false, description: 'Android keys: the app’s package name, checked against the key’s lock.', schema: { type: 'string' } },
  IdempotencyKey: { name: 'Idempotency-Key', in: 'header', required: false, description: 'The same key and body replay the first answer for 24 hours; the same key with another body is `400 idempotency_key_in_use`.', schema: { type: 'string', minLength: 1 } },
  ServiceSdkVersion: { name: 'Service-Sdk-Version', in: 'header', required: false, description: '`<name>@<version>` of the calling SDK.', schema: { type: 'string' } },
  StripeSignature: { name: 'Stripe-Signature', in: 'header', required: true, description: 'Stripe’s signature of the raw body.', schema: { type: 'string' } },
};

const HEADERS = {
  RequestId: { description: 'The request id (`req_…`); an error body’s `request_id`.', schema: { type: 'string', pattern: '^req_' } },
  RetryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } },
  XServiceSampleRate: { description: 'A hint (0..1) for proportional local sampling.', schema: { type: 'number', minimum: 0, maximum: 1 } },
  IdempotentReplayed: { description: '`true` on a replayed purchase sync.', schema: { type: 'string', enum: ['true'] } },
};
