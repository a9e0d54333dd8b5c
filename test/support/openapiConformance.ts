import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type supertest from 'supertest';

/**
 * Checks live answers against the committed OpenAPI document (docs/openapi.json, which a test
 * holds equal to what the route table generates): the answer's status must be documented for
 * its operation, and its JSON body must validate against that response's schema.
 */
type Json = Record<string, any>;

export const OPENAPI_DOCUMENT: Json = JSON.parse(readFileSync(join(__dirname, '..', '..', 'docs', 'openapi.json'), 'utf8'));

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const compiled = new Map<string, ReturnType<typeof ajv.compile>>();

/** The document's path template that a concrete path matches (`/v1/server/audit/x`, `/server/audit/x` → `/v1/server/audit/{eventId}`). */
export function documentedPath(path: string): string | undefined {
  const segments = path.split('?')[0].split('/').filter(Boolean);
  // Every path is also served without `/v1`; the document names the canonical form.
  if (segments[0] !== 'v1') segments.unshift('v1');
  return Object.keys(OPENAPI_DOCUMENT.paths).find((template) => {
    const parts = template.split('/').filter(Boolean);
    return parts.length === segments.length && parts.every((part, i) => part.startsWith('{') || part === segments[i]);
  });
}

/** `#/components/...` references replaced by what they name, so a response schema compiles on its own. */
function inlineRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(inlineRefs);
  if (typeof node !== 'object' || node === null) return node;
  const { $ref, ...rest } = node as Json;
  const base = typeof $ref === 'string' && $ref.startsWith('#/') ? inlineRefs($ref.slice(2).split('/').reduce((at: Json, key) => at[key], OPENAPI_DOCUMENT)) : {};
  const own = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, inlineRefs(value)]));
  return typeof $ref === 'string' && $ref.startsWith('#/') ? { allOf: [base, own] } : { ...own, ...($ref ? { $ref } : {}) };
}

/** Problems of one answer against the document; empty when it conforms. */
export function conformanceProblems(method: string, path: string, status: number, body: unknown): string[] {
  const template = documentedPath(path);
  const operation = template && OPENAPI_DOCUMENT.paths[template][method.toLowerCase()];
  if (!operation) return [`${method} ${path} is not in the document`];
  const response = operation.responses[String(status)];
  if (!response) return [`${method} ${template}: status ${status} is not documented (documented: ${Object.keys(operation.responses).join(', ')})`];
  const schema = response.content?.['application/json']?.schema;
  if (!schema) return status === 204 ? [] : [`${method} ${template} ${status}: no schema`];
  const key = `${method} ${template} ${status}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(inlineRefs(schema) as object);
    compiled.set(key, validate);
  }
  if (validate(body)) return [];
  return (validate.errors ?? []).map((error) => `${key}: ${error.instancePath || 'body'} ${error.message} ${JSON.stringify(error.params)}`);
}

/** Fails the test when the answer is not what the document says. */
export function expectDocumented(res: supertest.Response, method: string, path: string): void {
  const problems = conformanceProblems(method, path, res.status, res.body);
  if (problems.length > 0) throw new Error(`answer not as documented (${res.status} ${JSON.stringify(res.body).slice(0, 400)}):\n${problems.join('\n')}`);
}
