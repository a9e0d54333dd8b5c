/**
 * One identifier's rule: its prefix (empty when it has none), the pattern a whole value must
 * match, and the same rule as a JSON Schema (2020-12) string subschema for the wire schemas.
 * Kernel: imports nothing.
 */
export interface IdRule<Schema extends IdSchema = IdSchema> {
  /** What the id names, for messages ("customer id"). */
  readonly name: string;
  readonly prefix: string;
  readonly pattern: RegExp;
  readonly schema: Schema;
  /** True when `value` is a string the rule admits. */
  is(value: unknown): value is string;
}

export interface IdSchema {
  readonly type: 'string';
  readonly pattern: string;
}

/**
 * Firestore reserves `.`, `..` and `__…__` as document ids; a rule whose characters allow them
 * excludes them with these lookaheads (in the pattern, so the JSON Schema says it too).
 */
export const NOT_RESERVED_DOC_ID = '(?!\\.\\.?$)(?!__.*__$)';

export function idRule<const Source extends string>(name: string, prefix: string, source: Source): IdRule<{ readonly type: 'string'; readonly pattern: Source }> {
  const pattern = new RegExp(source);
  return {
    name,
    prefix,
    pattern,
    schema: { type: 'string', pattern: source },
    is: (value: unknown): value is string => typeof value === 'string' && pattern.test(value),
  };
}
