/**
 * Stored records are read through typed references: each record type has a Firestore converter
 * (store/converters.ts `storedRecord`, declared beside the type) and reads go through refs and
 * queries `withConverter(...)` it. So no `.data() as T` cast exists under functions/src, and no
 * `.data()` there reads as the untyped `DocumentData` (whose fields are `any`). The one cast is
 * the converter itself. Converters change nothing at run time: the last test reads a document
 * written with and without one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { storedRecord } from '../../functions/src/store/converters';
import { EnvScope } from '../../functions/src/store/scope';
import { createTestService } from '../support/harness';

const ROOT = resolve(__dirname, '..', '..', 'functions');
const SRC = join(ROOT, 'src');
/** Where a stored document may be taken to be its type: the converter, and nowhere else. */
const CONVERTER = 'store/converters.ts';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Lines of `source` that cast a snapshot's data (`.data() as T`, `.data()! as T`, `(…data()) as T`). */
export function dataCasts(source: string): number[] {
  return source.split('\n').flatMap((line, i) => (/\.data\(\)\s*!?\s*\)?\s*as\s+[A-Za-z{(]/.test(line) ? [i + 1] : []));
}

it('casts no snapshot data outside the converter', () => {
  const offenders = sourceFiles(SRC)
    .map((file) => ({ path: relative(SRC, file).replace(/\\/g, '/'), lines: dataCasts(readFileSync(file, 'utf8')) }))
    .filter(({ path, lines }) => lines.length > 0 && path !== CONVERTER)
    .map(({ path, lines }) => `${path}:${lines.join(',')}`);
  expect(offenders).toEqual([]);
});

it('recognises a cast of snapshot data (so the scan can fail)', () => {
  expect(dataCasts('const record = snapshot.data() as CustomerRecord;')).toEqual([1]);
  expect(dataCasts('x\nconst r = (snap.data() as CustomerRecord | undefined)?.status;')).toEqual([2]);
  expect(dataCasts('const settings = (snapshot.data()) as SdkSettings;')).toEqual([1]);
  expect(dataCasts('const record = snapshot.data()!;\nconst other = snapshot.data() ?? null;')).toEqual([]);
});

/** Every `.data()` call under functions/src whose type is the untyped `DocumentData`. */
function untypedReads(): string[] {
  const configPath = join(ROOT, 'tsconfig.json');
  const config = ts.parseJsonConfigFileContent(ts.readConfigFile(configPath, ts.sys.readFile).config, ts.sys, ROOT);
  const program = ts.createProgram(config.fileNames, { ...config.options, noEmit: true });
  const checker = program.getTypeChecker();
  const found: string[] = [];
  for (const file of program.getSourceFiles()) {
    const path = relative(SRC, file.fileName).replace(/\\/g, '/');
    if (path.startsWith('..') || path === CONVERTER) continue;
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && node.arguments.length === 0 && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'data') {
        const type = checker.typeToString(checker.getTypeAtLocation(node));
        if (/\bDocumentData\b|\bany\b/.test(type)) found.push(`${path}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${type}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return found;
}

it('reads every stored document through a typed reference', () => {
  expect(untypedReads()).toEqual([]);
});

it('stores and reads a document exactly as without a converter', async () => {
  const service = createTestService();
  const scope = new EnvScope(service.deps.db, `proj_conv_${Date.now()}`, 'test');
  interface Probe {
    name: string;
    nested: { n: number; list: string[] };
    absent: null;
  }
  const record: Probe = { name: 'probe', nested: { n: 1, list: ['a', 'b'] }, absent: null };
  const typed = scope.doc('probes', 'typed').withConverter(storedRecord<Probe>());
  await typed.set(record);
  await scope.doc('probes', 'plain').set(record);
  const [withConverter, plain] = await scope.getAll(typed, scope.doc('probes', 'plain'));
  expect(withConverter.data()).toEqual(record);
  expect(plain.data()).toEqual(withConverter.data());
  expect((await scope.doc('probes', 'typed').get()).data()).toEqual(record);
});
