/**
 * Route schemas (Ajv's JSON Schema with its OpenAPI-3.0-style `nullable`) as OpenAPI 3.1 schemas
 * (JSON Schema 2020-12): `nullable: true` becomes a `'null'` member of `type`; everything else,
 * our `x-` annotations included, is kept as written.
 */
export type JsonSchema = { [keyword: string]: unknown };

/** Keywords whose value is one schema. */
const ONE = ['not', 'items', 'additionalProperties', 'propertyNames', 'contains', 'if', 'then', 'else', 'unevaluatedProperties', 'unevaluatedItems'];
/** Keywords whose value is a list of schemas. */
const LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
/** Keywords whose value maps names to schemas. */
const MAP = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];

export function toOpenApiSchema(schema: unknown): JsonSchema {
  // Boolean schemas: `true` admits anything, `false` nothing.
  if (schema === false) return { not: {} };
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return {};
  const { nullable, ...rest } = schema as JsonSchema;
  const out: JsonSchema = {};
  for (const [keyword, value] of Object.entries(rest)) {
    if (ONE.includes(keyword) && typeof value === 'object' && value !== null && !Array.isArray(value)) out[keyword] = toOpenApiSchema(value);
    else if (LIST.includes(keyword) && Array.isArray(value)) out[keyword] = value.map(toOpenApiSchema);
    else if (MAP.includes(keyword) && typeof value === 'object' && value !== null) {
      out[keyword] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, toOpenApiSchema(sub)]));
    } else out[keyword] = value;
  }
  if (nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (Array.isArray(out.type) && !out.type.includes('null')) out.type = [...out.type, 'null'];
    // An enum lists its values: null must be one of them to be admitted.
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  }
  return out;
}

/** Every `x-code` a schema names (the error codes its validation can answer besides `invalid_param_value`). */
export function annotatedErrorCodes(schema: unknown): string[] {
  const found = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (typeof value !== 'object' || value === null) return;
    for (const [keyword, sub] of Object.entries(value)) {
      if (keyword === 'x-code') {
        if (typeof sub === 'string') found.add(sub);
        else if (typeof sub === 'object' && sub !== null) Object.values(sub).forEach((code) => typeof code === 'string' && found.add(code));
      } else visit(sub);
    }
  };
  visit(schema);
  return [...found];
}
