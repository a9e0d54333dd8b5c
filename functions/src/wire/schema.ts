/**
 * What a wire schema is: plain JSON Schema (2020-12 vocabulary, as `as const` objects), plus our
 * `x-` annotations that word validation messages (http/validation.ts). Types come from the
 * schemas with `json-schema-to-ts` (`FromSchema`, a type-only import: nothing at run time).
 */
export type JsonSchema = boolean | { readonly [keyword: string]: unknown };

/** A route's 2xx response: one schema, or one per status code (`{ 200: …, 202: … }`). */
export type ResponseSchemas = JsonSchema | { readonly [status: number]: JsonSchema };

/** True when `response` is a map by status code rather than a schema itself. */
export function isResponseMap(response: ResponseSchemas): response is { readonly [status: number]: JsonSchema } {
  if (typeof response !== 'object') return false;
  const keys = Object.keys(response);
  return keys.length > 0 && keys.every((key) => /^[2-5][0-9]{2}$/.test(key));
}

/**
 * The response schema of one status, or undefined when the route declares none for it.
 * @internal the tests' response check (test/support/responseCheck.ts) reads it; nothing deployed does.
 */
export function responseSchemaFor(response: ResponseSchemas | undefined, status: number): JsonSchema | undefined {
  if (response === undefined) return undefined;
  if (isResponseMap(response)) return response[status];
  return status >= 200 && status < 300 ? response : undefined;
}
