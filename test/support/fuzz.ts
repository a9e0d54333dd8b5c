/**
 * Seeded generation of hostile request bodies for the fuzz suite: a small PRNG (mulberry32, so
 * a seed reproduces a run exactly) and mutations of a route's valid body — wrong types, huge
 * strings, deep nesting, `__proto__` and other odd keys, lone surrogates, bytes that are not
 * UTF-8, truncated JSON, odd top-level values and wrong content types.
 */

export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(below: number): number {
    return Math.floor(this.next() * below);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  chance(p: number): boolean {
    return this.next() < p;
  }
}

/**
 * JSON text with raw fragments: values that JSON.stringify cannot produce or that would
 * overflow it (10,000 levels of nesting) are placed as tokens and spliced in afterwards.
 */
export class JsonText {
  private readonly fragments = new Map<string, string>();

  raw(text: string): string {
    const token = `@@fuzz-raw-${this.fragments.size}@@`;
    this.fragments.set(token, text);
    return token;
  }

  /** A short description of a generated value, for failure reports. */
  describe(value: unknown): string {
    if (typeof value === 'string' && this.fragments.has(value)) {
      const fragment = this.fragments.get(value)!;
      return `${fragment.startsWith('[') ? 'arrays' : 'objects'} nested ${fragment.match(/^(\[|\{"a":)*/)![0].length / (fragment.startsWith('[') ? 1 : 5)} deep`;
    }
    if (typeof value === 'string' && value.length > 64) return `a string of ${value.length} code units of ${JSON.stringify(String.fromCodePoint(value.codePointAt(0)!))}`;
    if (Array.isArray(value) && value.length > 8) return `an array of ${value.length}`;
    return (JSON.stringify(value) ?? String(value)).slice(0, 80);
  }

  stringify(value: unknown): string {
    let text = JSON.stringify(value) ?? 'null';
    for (const [token, fragment] of this.fragments) text = text.split(`"${token}"`).join(fragment);
    return text;
  }
}

export interface FuzzBody {
  /** What was done, for the failure report. */
  label: string;
  contentType: string | null;
  bytes: Buffer;
}

const LONE_SURROGATES = ['\ud800', '\udfff', 'pro\ud800', '\ud83d', 'x\udc00y', '\ude00\ud83d', 'ok\ud83d\ud83d'];
const ODD_STRINGS = ['', ' ', '\u0000', 'null', '../../x', 'cdcust_../../x', '/', '.', '..', '__x__', '%00', 'a/b', '😀', '\u202eevil', '\u2028', 'é', 'ﬃ', '\ufffd'];
const ODD_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '', 'a.b', 'a/b', '__name__', '$where', 'x'.repeat(2000), 'k\ud800', '\udc00'];
const SCALARS: unknown[] = [0, -1, 1.5, -0, 1e308, -1e308, 2 ** 53 + 1, true, false, null, [], {}, [1, 'a', null], { a: 1 }];

/** An object whose keys are exactly these, `__proto__` included as an ordinary own key. */
export const objectOf = (entries: [string, unknown][]): Record<string, unknown> => Object.fromEntries(entries);

function deepText(rng: Rng): string {
  const levels = rng.pick([63, 64, 65, 100, 1_000, 3_000, 10_000, 50_000]);
  if (rng.chance(0.5)) return `${'['.repeat(levels)}${']'.repeat(levels)}`;
  return `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
}

function hugeString(rng: Rng): string {
  return rng.pick(['x', 'é', '😀', '\u0000']).repeat(rng.pick([1_025, 10_000, 100_000, 300_000]));
}

/** A value that a route should not expect where it finds it. */
export function oddValue(rng: Rng, text: JsonText): unknown {
  switch (rng.int(8)) {
    case 0:
      return rng.pick(SCALARS);
    case 1:
      return hugeString(rng);
    case 2:
      return rng.pick(LONE_SURROGATES);
    case 3:
      return text.raw(deepText(rng));
    case 4:
      return objectOf([[rng.pick(ODD_KEYS), rng.chance(0.5) ? { polluted: true } : rng.pick(SCALARS)]]);
    case 5:
      return Array.from({ length: rng.pick([100, 1_000, 5_000]) }, (_, i) => (rng.chance(0.5) ? i : { i }));
    case 6:
      return rng.pick(ODD_STRINGS);
    default:
      return objectOf([['__proto__', { polluted: 'yes', isAdmin: true }]]);
  }
}

type Path = (string | number)[];

/** Every place in a (small, shallow) valid body: the root, each key and each array slot. */
function pathsOf(value: unknown): Path[] {
  const out: Path[] = [[]];
  const queue: [unknown, Path][] = [[value, []]];
  while (queue.length > 0) {
    const [node, path] = queue.shift()!;
    if (typeof node !== 'object' || node === null) continue;
    for (const [key, child] of Object.entries(node)) {
      const at: Path = [...path, Array.isArray(node) ? Number(key) : key];
      out.push(at);
      queue.push([child, at]);
    }
  }
  return out;
}

const clone = <T>(value: T): T => structuredClone(value);

function setAt(root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  let node = root as Record<string | number, unknown>;
  for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
  Object.defineProperty(node, path[path.length - 1], { value, enumerable: true, writable: true, configurable: true });
  return root;
}

function deleteAt(root: unknown, path: Path): unknown {
  if (path.length === 0) return {};
  let node = root as Record<string | number, unknown>;
  for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
  if (Array.isArray(node)) node.splice(path[path.length - 1] as number, 1);
  else delete node[path[path.length - 1]];
  return root;
}

/** Values of the JSON text that are not UTF-8 once encoded: a lone byte 0xff or a truncated sequence. */
function withInvalidUtf8(text: string, rng: Rng): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  const at = text.indexOf('"') >= 0 ? Buffer.byteLength(text.slice(0, text.indexOf('"') + 1)) : 0;
  return Buffer.concat([bytes.subarray(0, at), Buffer.from(rng.pick([[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xf0, 0x9f, 0x98]])), bytes.subarray(at)]);
}

const JSON_TYPE = 'application/json';
const WRONG_TYPES = [null, 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/jsonp', 'json'];

export interface MutateOptions {
  /** The route's body limit: an over-limit body is sometimes sent. */
  maxBodyBytes: number;
  /** Whether to send over-limit bodies at all (skipped where the limit is tens of MB). */
  overLimit: boolean;
}

/**
 * One hostile body derived from `valid`. `finish` turns the (possibly mutated) value's JSON text
 * into the bytes sent (webhooks sign or wrap it there); it is skipped for bodies that are not
 * JSON text at all.
 */
export function mutateBody(rng: Rng, valid: unknown, options: MutateOptions): { label: string; value?: unknown; text?: JsonText; raw?: FuzzBody } {
  const text = new JsonText();
  const roll = rng.next();
  if (roll < 0.12) return { label: 'valid', value: clone(valid), text };
  if (roll < 0.47) {
    const path = rng.pick(pathsOf(valid));
    const odd = oddValue(rng, text);
    return { label: `replace ${JSON.stringify(path)} with ${text.describe(odd)}`, value: setAt(clone(valid), path, odd), text };
  }
  if (roll < 0.6) {
    const objects = pathsOf(valid).filter((p) => {
      let node: unknown = valid;
      for (const step of p) node = (node as Record<string | number, unknown>)[step];
      return typeof node === 'object' && node !== null && !Array.isArray(node);
    });
    const path = [...rng.pick(objects), rng.pick(ODD_KEYS)];
    const odd = oddValue(rng, text);
    return { label: `add ${JSON.stringify(path).slice(0, 80)}: ${text.describe(odd)}`, value: setAt(clone(valid), path, odd), text };
  }
  if (roll < 0.66) {
    const path = rng.pick(pathsOf(valid));
    return { label: `delete ${JSON.stringify(path)}`, value: deleteAt(clone(valid), path), text };
  }
  if (roll < 0.74) {
    const top = rng.pick<unknown>([null, [], 0, 'str', true, {}, [valid], ...LONE_SURROGATES.slice(0, 2)]);
    return { label: `top-level ${JSON.stringify(top)?.slice(0, 40)}`, value: top, text };
  }
  const validText = JSON.stringify(valid);
  if (roll < 0.82) {
    const cut = rng.int(validText.length);
    return { label: `truncated at ${cut}`, raw: { label: `truncated at ${cut}`, contentType: JSON_TYPE, bytes: Buffer.from(validText.slice(0, cut)) } };
  }
  if (roll < 0.89) {
    const type = rng.pick(WRONG_TYPES);
    return { label: `content type ${type}`, raw: { label: `content type ${type}`, contentType: type, bytes: Buffer.from(validText) } };
  }
  if (roll < 0.95) return { label: 'invalid UTF-8', raw: { label: 'invalid UTF-8', contentType: JSON_TYPE, bytes: withInvalidUtf8(validText, rng) } };
  if (roll < 0.97 || !options.overLimit) return { label: 'empty body', raw: { label: 'empty body', contentType: JSON_TYPE, bytes: Buffer.alloc(0) } };
  const padded = JSON.stringify({ ...(valid as object), pad: 'x'.repeat(options.maxBodyBytes) });
  return { label: 'over the body limit', raw: { label: 'over the body limit', contentType: JSON_TYPE, bytes: Buffer.from(padded) } };
}
