/**
 * What a string must be before it may reach Firestore: well-formed Unicode (a lone UTF-16
 * surrogate cannot be encoded, and the write then fails slowly, after retries, instead of at
 * once), and, to name a document, a legal and bounded document id. Pure; used wherever a
 * string from outside (a verified rail payload included) becomes a stored value or an id.
 * Whole JSON values (strings, keys and nesting) are checked by http/jsonShape.ts.
 */

/** Well under Firestore's 1,500-byte limit, leaving room for prefixes (`apple_txn_…`, `stripe:…`). */
export const MAX_DOC_ID_BYTES = 512;

/**
 * A usable document id: a non-empty, well-formed string of at most MAX_DOC_ID_BYTES UTF-8
 * bytes, without `/`, and neither `.`, `..` nor `__…__` (reserved by Firestore).
 */
export function isUsableDocId(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value !== '' &&
    value !== '.' &&
    value !== '..' &&
    !value.includes('/') &&
    !/^__.*__$/s.test(value) &&
    value.isWellFormed() &&
    Buffer.byteLength(value, 'utf8') <= MAX_DOC_ID_BYTES
  );
}

/** At most `max` UTF-16 units, never cutting a surrogate pair in two (which would leave a lone one). */
export function truncateText(value: string, max: number): string {
  if (value.length <= max) return value;
  const cut = /[\uD800-\uDBFF]/.test(value[max - 1] ?? '') ? max - 1 : max;
  return value.slice(0, cut);
}
