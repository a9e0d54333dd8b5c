import { invalidParamValue } from '../errors/domain';

export type TraitValue = string | number | boolean | null;
export type Traits = Record<string, TraitValue>;

/** Per call (the spec's limits). */
export const MAX_TRAIT_KEYS = 32;
export const MAX_TRAIT_STRING_LENGTH = 1024;
const MAX_TRAIT_KEY_LENGTH = 128;
/**
 * Across calls traits merge additively; the stored set is bounded so a customer document stays
 * far below Firestore's 1 MiB (256 × ~1 KB). Beyond it, new keys are ignored while existing
 * keys still update.
 */
export const MAX_STORED_TRAIT_KEYS = 256;

/**
 * One call's traits as an Ajv subschema (the rules `sanitizeTraits` applies, same messages):
 * nested objects and arrays pass validation, and `sanitizeTraits` then drops them.
 */
export const traitsSchema = {
  type: 'object',
  nullable: true,
  maxProperties: MAX_TRAIT_KEYS,
  propertyNames: { minLength: 1, maxLength: MAX_TRAIT_KEY_LENGTH, not: { pattern: '^__.*__$' }, 'x-invalid': `keys are 1–${MAX_TRAIT_KEY_LENGTH} characters and not of the form __name__` },
  additionalProperties: { type: ['string', 'number', 'boolean', 'null', 'object', 'array'], maxLength: MAX_TRAIT_STRING_LENGTH, 'x-invalid': `strings are at most ${MAX_TRAIT_STRING_LENGTH} characters` },
  required: [],
  'x-invalid': { type: 'must be an object', maxProperties: `at most ${MAX_TRAIT_KEYS} keys` },
} as const;

/**
 * Validates one call's traits: an object of at most 32 keys whose values are strings up to
 * 1,024 characters, finite numbers, booleans or null. Nested objects and arrays are dropped
 * (not rejected), as the spec says; anything else is `400 invalid_param_value`.
 */
export function sanitizeTraits(input: unknown, field = 'traits'): Traits {
  if (input === undefined || input === null) return {};
  if (typeof input !== 'object' || Array.isArray(input)) throw invalidParamValue(`Invalid value for \`${field}\`: must be an object.`);
  const entries = Object.entries(input as Record<string, unknown>);
  if (entries.length > MAX_TRAIT_KEYS) throw invalidParamValue(`Invalid value for \`${field}\`: at most ${MAX_TRAIT_KEYS} keys.`);
  const out: Traits = {};
  for (const [key, value] of entries) {
    if (key.length === 0 || key.length > MAX_TRAIT_KEY_LENGTH || /^__.*__$/.test(key)) {
      throw invalidParamValue(`Invalid key in \`${field}\`: keys are 1–${MAX_TRAIT_KEY_LENGTH} characters and not of the form __name__.`);
    }
    if (value !== null && typeof value === 'object') continue; // nested objects and arrays are dropped
    if (typeof value === 'string') {
      if (value.length > MAX_TRAIT_STRING_LENGTH) throw invalidParamValue(`Invalid value for \`${field}.${key}\`: strings are at most ${MAX_TRAIT_STRING_LENGTH} characters.`);
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw invalidParamValue(`Invalid value for \`${field}.${key}\`: numbers must be finite.`);
    } else if (typeof value !== 'boolean' && value !== null) {
      throw invalidParamValue(`Invalid value for \`${field}.${key}\`: must be a string, number, boolean or null.`);
    }
    out[key] = value as TraitValue;
  }
  return out;
}

/** Additive per-key merge: incoming keys overwrite, other stored keys stay. */
export function mergeTraits(stored: Traits, incoming: Traits): Traits {
  const merged: Traits = { ...stored };
  let count = Object.keys(merged).length;
  for (const [key, value] of Object.entries(incoming)) {
    if (!(key in merged)) {
      if (count >= MAX_STORED_TRAIT_KEYS) continue;
      count += 1;
    }
    merged[key] = value;
  }
  return merged;
}

export function traitsEqual(a: Traits, b: Traits): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => key in b && Object.is(a[key], b[key]));
}
