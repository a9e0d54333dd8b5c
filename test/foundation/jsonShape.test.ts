/**
 * Guarantees of the request-shape walker (pure logic): it finds every string that is not
 * well-formed Unicode (values and keys, at any depth) and every container nested beyond the
 * limit, names its path, accepts everything else, and never recurses (a million levels walk
 * without a stack overflow). Also the strict URL decoding of path and query parameters.
 */
import { findJsonProblem, formatJsonPath, MAX_JSON_DEPTH } from '../../functions/src/wire/jsonShape';
import { ApiError } from '../../functions/src/http/errors';
import { decodeUrlComponent, parseQueryString } from '../../functions/src/http/urlParts';

const LONE_HIGH = '\ud800';
const LONE_LOW = '\udc00';

/** `{ a: { a: … leaf } }` with `levels` objects, built without recursion. */
function nestedObjects(levels: number, leaf: unknown = 1): unknown {
  let value = leaf;
  for (let i = 0; i < levels; i += 1) value = { a: value };
  return value;
}
function nestedArrays(levels: number): unknown {
  let value: unknown = [];
  for (let i = 1; i < levels; i += 1) value = [value];
  return value;
}

describe('findJsonProblem: Unicode', () => {
  it('accepts well-formed strings, including astral characters (surrogate pairs) and U+FFFD', () => {
    expect(findJsonProblem({ name: 'plain', emoji: '😀 𝄞', cjk: '漢字', replacement: '\ufffd', list: ['a', { b: 'ü' }], n: 1, t: true, z: null })).toBeNull();
    expect(findJsonProblem('😀')).toBeNull();
    expect(findJsonProblem(42)).toBeNull();
    expect(findJsonProblem(null)).toBeNull();
  });

  it('finds a lone high or low surrogate in a value and names its path', () => {
    expect(findJsonProblem({ userId: 'u', traits: { plan: `pro${LONE_HIGH}` } })).toEqual({ kind: 'ill_formed_string', path: ['traits', 'plan'] });
    expect(findJsonProblem({ events: [{ name: 'x' }, { name: 'y', properties: { list: ['ok', `${LONE_LOW}x`] } }] })).toEqual({
      kind: 'ill_formed_string',
      path: ['events', 1, 'properties', 'list', 1],
    });
    // A high surrogate followed by another high one is not a pair.
    expect(findJsonProblem({ s: '\ud83d\ud83d' })?.kind).toBe('ill_formed_string');
    // A pair in the wrong order is two lone surrogates.
    expect(findJsonProblem({ s: '\ude00\ud83d' })?.kind).toBe('ill_formed_string');
  });

  it('finds a lone surrogate in an object key, at the root or deep, and names the key', () => {
    expect(findJsonProblem({ [`plan${LONE_HIGH}`]: 1 })).toEqual({ kind: 'ill_formed_key', path: [`plan${LONE_HIGH}`] });
    expect(findJsonProblem({ traits: { ok: 1, [`k${LONE_LOW}`]: 'v' } })).toEqual({ kind: 'ill_formed_key', path: ['traits', `k${LONE_LOW}`] });
    expect(findJsonProblem([[{ [LONE_HIGH]: null }]])).toEqual({ kind: 'ill_formed_key', path: [0, 0, LONE_HIGH] });
  });

  it('checks a root string and reports an empty path', () => {
    expect(findJsonProblem(LONE_HIGH)).toEqual({ kind: 'ill_formed_string', path: [] });
  });

  it('treats `__proto__` as an ordinary key (JSON.parse makes it an own property)', () => {
    const parsed = JSON.parse(`{"__proto__":{"polluted":"x\\ud800"}}`);
    expect(findJsonProblem(parsed)).toEqual({ kind: 'ill_formed_string', path: ['__proto__', 'polluted'] });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('skips string checks when asked (depth only)', () => {
    expect(findJsonProblem({ [LONE_HIGH]: LONE_LOW }, { checkStrings: false })).toBeNull();
  });
});

describe('findJsonProblem: depth', () => {
  it(`accepts exactly ${MAX_JSON_DEPTH} levels of objects or arrays and refuses one more`, () => {
    expect(findJsonProblem(nestedObjects(MAX_JSON_DEPTH))).toBeNull();
    expect(findJsonProblem(nestedArrays(MAX_JSON_DEPTH))).toBeNull();
    const tooDeep = findJsonProblem(nestedObjects(MAX_JSON_DEPTH + 1));
    expect(tooDeep).toEqual({ kind: 'too_deep', path: Array(MAX_JSON_DEPTH).fill('a'), maxDepth: MAX_JSON_DEPTH });
    expect(findJsonProblem(nestedArrays(MAX_JSON_DEPTH + 1))).toEqual({ kind: 'too_deep', path: Array(MAX_JSON_DEPTH).fill(0), maxDepth: MAX_JSON_DEPTH });
  });

  it('counts the root as the first level and scalars as no level', () => {
    expect(findJsonProblem({}, { maxDepth: 1 })).toBeNull();
    expect(findJsonProblem({ a: 1, b: 'x' }, { maxDepth: 1 })).toBeNull();
    expect(findJsonProblem({ a: [] }, { maxDepth: 1 })).toEqual({ kind: 'too_deep', path: ['a'], maxDepth: 1 });
    expect(findJsonProblem({ a: { b: [1] } }, { maxDepth: 2 })).toEqual({ kind: 'too_deep', path: ['a', 'b'], maxDepth: 2 });
  });

  it('measures depth per path, not across siblings (a wide body is fine)', () => {
    const wide = { items: Array.from({ length: 10_000 }, (_, i) => ({ id: i, tags: ['a', 'b'], nested: nestedObjects(10) })) };
    expect(findJsonProblem(wide)).toBeNull();
  });

  it('walks a million levels without overflowing the stack (it is iterative)', () => {
    const deep = JSON.parse(`${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`);
    expect(findJsonProblem(deep, { maxDepth: 2_000_000 })).toBeNull();
    expect(findJsonProblem(deep)?.kind).toBe('too_deep');
  });

  it('reports the first problem in document order', () => {
    expect(findJsonProblem({ a: { b: `x${LONE_HIGH}` }, c: nestedObjects(100) })?.kind).toBe('ill_formed_string');
    expect(findJsonProblem({ c: nestedObjects(100), a: { b: `x${LONE_HIGH}` } })?.kind).toBe('too_deep');
  });
});

describe('formatJsonPath', () => {
  it('names fields the way validation messages do', () => {
    expect(formatJsonPath(['events', 3, 'properties', 'a'])).toBe('events[3].properties.a');
    expect(formatJsonPath([0, 'x'])).toBe('[0].x');
    expect(formatJsonPath([])).toBe('');
  });

  it('shows an ill-formed key with U+FFFD and shortens long paths', () => {
    expect(formatJsonPath(['traits', `pl${LONE_HIGH}an`])).toBe('traits.pl\ufffdan');
    expect(formatJsonPath(Array(20).fill('a'), 3)).toBe('a.a.a…');
  });
});

describe('URL decoding', () => {
  const rejects = (fn: () => unknown, mention: string) => {
    try {
      fn();
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe('invalid_param_value');
      expect((err as ApiError).message).toContain(mention);
      return;
    }
    throw new Error('expected a rejection');
  };

  it('decodes percent-encoded UTF-8, including astral characters', () => {
    expect(decodeUrlComponent('a%20b', 'x')).toBe('a b');
    expect(decodeUrlComponent('%F0%9F%98%80', 'x')).toBe('😀');
  });

  it('refuses malformed encodings, bytes that are not UTF-8 and encoded surrogates', () => {
    for (const raw of ['%', '%zz', '%E0%A4%A', '%ff', '%C3', '%ED%A0%80', '%ED%B0%80', '%F0%9F']) {
      rejects(() => decodeUrlComponent(raw, 'path parameter `projectId`'), 'projectId');
    }
  });

  it('refuses a raw lone surrogate in the URL text', () => {
    rejects(() => decodeUrlComponent(`a${LONE_HIGH}`, 'path parameter `id`'), '`id`');
  });

  it('parses a query like URLSearchParams, strictly', () => {
    expect(parseQueryString('/v1/entitlements?userId=u%201&x=a+b&x=2&flag&&=v#frag')).toEqual({ userId: 'u 1', x: ['a b', '2'], flag: '', '': 'v' });
    expect(parseQueryString('/v1/entitlements')).toEqual({});
    rejects(() => parseQueryString('/v1/entitlements?userId=%ED%A0%80'), '`userId`');
    rejects(() => parseQueryString('/v1/entitlements?userId=50%'), '`userId`');
    rejects(() => parseQueryString('/v1/entitlements?us%ffer=1'), 'query parameter name');
  });

  it('keeps `__proto__` as an ordinary own parameter', () => {
    const query = parseQueryString('/v1/entitlements?__proto__=a&__proto__=b');
    expect(Object.getPrototypeOf(query)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(query, '__proto__')).toBe(true);
    expect(query.__proto__).toEqual(['a', 'b']);
  });
});
