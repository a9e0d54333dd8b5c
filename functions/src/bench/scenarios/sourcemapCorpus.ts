/**
 * Realistic source maps for the benchmark (and the test that proves 100 of them fit one
 * request): the map of a minified bundle chunk of a dozen TypeScript modules, with
 * `sourcesContent`, `names` and one VLQ segment per original token, on one generated line as
 * minifiers emit. Deterministic per seed. About 200 KB each by default, the size of a typical
 * code-split chunk's map.
 */
const VLQ_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function vlq(value: number): string {
  let rest = value < 0 ? (-value << 1) | 1 : value << 1;
  let out = '';
  do {
    let digit = rest & 31;
    rest >>>= 5;
    if (rest > 0) digit |= 32;
    out += VLQ_ALPHABET[digit];
  } while (rest > 0);
  return out;
}

function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['cart', 'price', 'total', 'user', 'session', 'order', 'item', 'render', 'format', 'fetch', 'state', 'token', 'checkout', 'amount', 'locale', 'retry', 'queue', 'event'];

export function realisticSourceMap(seed: number, targetBytes = 200_000): Buffer {
  const random = prng(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  const identifier = () => `${pick(WORDS)}${pick(WORDS).replace(/^./, (c) => c.toUpperCase())}${Math.floor(random() * 100)}`;

  const sources: string[] = [];
  const sourcesContent: string[] = [];
  const names: string[] = [];
  const segments: string[] = [];
  let generatedColumn = 0;
  let previous = { column: 0, source: 0, line: 0, sourceColumn: 0, name: 0 };
  let size = 0;

  for (let source = 0; size < targetBytes; source += 1) {
    sources.push(`webpack://shop/./src/${pick(WORDS)}/${identifier()}.tsx`);
    const lines: string[] = [];
    for (let fn = 0; fn < 40 && size < targetBytes; fn += 1) {
      const [name, a, b, c] = [identifier(), identifier(), identifier(), identifier()];
      const body = [
        `export function ${name}(${a}: number, ${b}: string): string {`,
        `  const ${c} = ${a} * ${Math.floor(random() * 1000)} + ${b}.length;`,
        `  if (${c} > ${Math.floor(random() * 5000)}) return ${b}.slice(0, ${Math.floor(random() * 40)});`,
        `  return \`\${${b}}:\${${c}.toFixed(2)}\`;`,
        '}',
        '',
      ];
      for (const text of body) {
        const line = lines.length;
        lines.push(text);
        size += text.length + 1;
        // One segment per identifier-like token: generated column, source, line, column, name.
        for (const match of text.matchAll(/[A-Za-z_$][\w$]*/g)) {
          names.push(match[0]);
          const current = { column: generatedColumn, source, line, sourceColumn: match.index ?? 0, name: names.length - 1 };
          const segment =
            vlq(current.column - previous.column) +
            vlq(current.source - previous.source) +
            vlq(current.line - previous.line) +
            vlq(current.sourceColumn - previous.sourceColumn) +
            vlq(current.name - previous.name);
          segments.push(segment);
          size += segment.length + match[0].length + 4;
          previous = current;
          generatedColumn += 2 + Math.floor(random() * 6);
        }
      }
    }
    sourcesContent.push(lines.join('\n'));
  }
  const map = { version: 3, file: `chunk-${seed}.js`, sources, sourcesContent, names, mappings: segments.join(',') };
  return Buffer.from(JSON.stringify(map), 'utf8');
}

/** A `POST /v1/releases/sourcemaps` body of `count` distinct realistic maps. */
export function sourcemapBatchBody(release: string, environment: 'sandbox' | 'production', count = 100): { release: string; environment: string; files: { fileUrl: string; sourceMap: string }[] } {
  const files = Array.from({ length: count }, (_, i) => ({
    fileUrl: `https://shop.example.com/static/js/chunk-${i}.js`,
    sourceMap: realisticSourceMap(i + 1).toString('base64'),
  }));
  return { release, environment, files };
}
