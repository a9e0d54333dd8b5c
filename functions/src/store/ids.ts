/**
 * What a string must be before it may reach Firestore: well-formed Unicode (a lone UTF-16
 * surrogate cannot be encoded, and the write then fails slowly, after retries, instead of at
 * once), and, to name a document, a legal and bounded document id. Pure; used wherever a
 * string from outside (a verified rail payload included) becomes a stored value or an id.
 */

/** In a `u` regex a valid surrogate pair is one code point, so only a lone surrogate matches. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** Well under Firestore's 1,500-byte limit, leaving room for prefixes (`apple_txn_…`, `stripe:…`). */
export const MAX_DOC_ID_BYTES = 512;

export const isWellFormedText = (value: string): boolean => !LONE_SURROGATE.test(value);

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
    isWellFormedText(value) &&
    Buffer.byteLength(value, 'utf8') <= MAX_DOC_ID_BYTES
  );
}

/**
 * The path of the first string (value or key) in a JSON value that is not well-formed
 * (`data.object.metadata.plan`, `items[2]`), or null when every string is. Iterative, so a
 * deeply nested value cannot exhaust the stack.
 */
export function findIllFormedString(value: unknown): string | null {
  const pending: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  while (pending.length > 0) {
    const { value: current, path } = pending.pop()!;
    if (typeof current === 'string') {
      if (!isWellFormedText(current)) return path || '(root)';
    } else if (Array.isArray(current)) {
      current.forEach((item, i) => pending.push({ value: item, path: `${path}[${i}]` }));
    } else if (typeof current === 'object' && current !== null) {
      for (const [key, item] of Object.entries(current)) {
        const at = path ? `${path}.${key}` : key;
        if (!isWellFormedText(key)) return `${path || '(root)'} (a key)`;
        pending.push({ value: item, path: at });
      }
    }
  }
  return null;
}

/** At most `max` UTF-16 units, never cutting a surrogate pair in two (which would leave a lone one). */
export function truncateText(value: string, max: number): string {
  if (value.length <= max) return value;
  const cut = /[\uD800-\uDBFF]/.test(value[max - 1] ?? '') ? max - 1 : max;
  return value.slice(0, cut);
}
