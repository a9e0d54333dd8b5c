import { ApiError } from './errors';

/**
 * Strict decoding of the URL's parts (path parameters, query names and values). A malformed
 * percent-encoding, percent-encoded bytes that are not UTF-8 (an encoded surrogate included) or
 * a decoded string that is not well-formed Unicode is `400 invalid_param_value` naming the
 * parameter, never a 500 and never a silent U+FFFD.
 */
export function decodeUrlComponent(raw: string, what: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    throw illFormed(what);
  }
  if (!decoded.isWellFormed()) throw illFormed(what);
  return decoded;
}

/**
 * `a=1&b=2&b=3&c` → `{ a: '1', b: ['2', '3'], c: '' }`, as URLSearchParams would (with `+` as a
 * space), but strict about encodings. Built with `Object.fromEntries`, so a `__proto__`
 * parameter is an ordinary own field.
 */
export function parseQueryString(url: string): Record<string, string | string[]> {
  const start = url.indexOf('?');
  if (start < 0) return {};
  const end = url.indexOf('#', start);
  const query = url.slice(start + 1, end < 0 ? undefined : end);
  const values = new Map<string, string[]>();
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const rawName = (eq < 0 ? pair : pair.slice(0, eq)).replace(/\+/g, ' ');
    const rawValue = (eq < 0 ? '' : pair.slice(eq + 1)).replace(/\+/g, ' ');
    const name = decodeUrlComponent(rawName, 'a query parameter name');
    const value = decodeUrlComponent(rawValue, `query parameter \`${name.length > 64 ? `${name.slice(0, 64)}…` : name}\``);
    const list = values.get(name);
    if (list) list.push(value);
    else values.set(name, [value]);
  }
  return Object.fromEntries([...values].map(([name, list]) => [name, list.length === 1 ? list[0] : list]));
}

function illFormed(what: string): ApiError {
  return new ApiError('invalid_param_value', `Invalid value for ${what}: not valid percent-encoded UTF-8.`, { internal: `ill-formed URL encoding in ${what}` });
}
