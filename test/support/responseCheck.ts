import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { CompiledRoute, Reply } from '../../functions/src/http/route';
import { AJV_OPTIONS, addCustomKeywords } from '../../functions/src/http/validation';
import { responseSchemaFor } from '../../functions/src/wire/schema';

/**
 * The tests' response check (http/pipeline.ts `checkResponse`): every reply a handler returns
 * is validated against its route's `response` schema before it is sent. A reply that does not
 * match answers `500` and is recorded, and the harness fails the test that got it (the
 * deployed pipeline has no such check). Strict Ajv, all errors, so the message names every drift.
 */
const ajv = new Ajv({ ...AJV_OPTIONS, allErrors: true, validateSchema: true });
addFormats(ajv);
addCustomKeywords(ajv);
const compiled = new WeakMap<object, ValidateFunction>();

export interface ResponseDrift {
  route: string;
  status: number;
  errors: string[];
  body: unknown;
}

/** Drifts seen since the last `takeResponseDrifts()`. */
const drifts: ResponseDrift[] = [];

export function takeResponseDrifts(): ResponseDrift[] {
  return drifts.splice(0);
}

export function checkResponse(route: CompiledRoute, reply: Reply): void {
  const status = reply.status ?? 200;
  if (status === 204) return;
  const schema = responseSchemaFor(route.response, status);
  if (schema === undefined) return;
  let validate = typeof schema === 'object' ? compiled.get(schema) : undefined;
  if (!validate) {
    validate = ajv.compile(schema);
    if (typeof schema === 'object') compiled.set(schema, validate);
  }
  // The body as the client receives it (JSON), not the handler's objects (undefined fields, Dates…).
  const body: unknown = reply.body === undefined ? undefined : JSON.parse(JSON.stringify(reply.body));
  if (validate(body)) return;
  const drift: ResponseDrift = {
    route: `${route.method} ${route.path}`,
    status,
    errors: (validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message ?? e.keyword}${e.params && 'additionalProperty' in e.params ? `: ${String(e.params.additionalProperty)}` : ''}`),
    body,
  };
  drifts.push(drift);
  throw new Error(`response of ${drift.route} (${status}) does not match its schema: ${drift.errors.join('; ')}`);
}
