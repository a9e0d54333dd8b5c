import { appendFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { QUERY_LOG_DIR_VARIABLE, type RecordedQuery } from './queryLog';
import { requestQueries } from './queryShapes';

/**
 * Jest setup file: records the shape of every query and aggregation the SERVICE issues
 * (functions/src or functions/lib on the caller's stack) so that globalTeardown.ts can check each
 * against firestore.indexes.json — the emulator serves any query without an index, production
 * does not. Queries the tests issue themselves to inspect the store are not service code paths
 * and are left out.
 *
 * The client is wrapped where a query starts executing: `Query#_getResponse` (behind get() and
 * transaction reads), `Query#stream`, and `AggregateQuery#_getResponse` (count(), aggregate()).
 * Internal methods (not in the typings), chosen because they still run synchronously with the
 * caller, so the stack names the service function; the RPC edge (fixtures/storeCallRecorder.ts)
 * runs later from the client's own promise chain. `jest.doMock` with the real module keeps this
 * lazy: a test file that never loads the client does not pay for it.
 */

const ROOT = join(__dirname, '../..');
const directory = process.env[QUERY_LOG_DIR_VARIABLE];
const SERVICE_FRAME = /[/\\]functions[/\\](src|lib)[/\\]/;
/** The store's generic funnels run whatever query their caller built: the frame after them decides whose query it is. */
const FUNNEL_FRAME = /[/\\]functions[/\\](src|lib)[/\\]store[/\\](scope|partitions)\.(ts|js)$/;
const TEST_FRAME = /[/\\]test[/\\]/;
const seen = new Set<string>();

/**
 * Whose query this is, from the stack at the call: the service's when the innermost frame past
 * the client and the store's funnels is under functions/ (at most two such frames are kept, for
 * the report, with the test frame that led there); a test's own inspection of the store otherwise.
 */
function callers(): { caller: string; test: string | null } | null {
  const holder: { stack?: string } = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 40;
  Error.captureStackTrace(holder, callers);
  Error.stackTraceLimit = limit;
  const frames = (holder.stack ?? '')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().match(/\(?([^\s()]+):(\d+):\d+\)?$/))
    .filter((m): m is RegExpMatchArray => m !== null && !m[1].startsWith('node:') && !m[1].includes('node_modules') && !m[1].endsWith('queryRecorder.ts'));
  const at = (m: RegExpMatchArray) => `${relative(ROOT, m[1])}:${m[2]}`;
  const own = frames.filter((m) => !FUNNEL_FRAME.test(m[1]));
  // Only funnel frames: nothing says it is a test's, so it is checked.
  if (own.length > 0 && !SERVICE_FRAME.test(own[0][1])) return null;
  const service = (own.length > 0 ? own : frames).filter((m) => SERVICE_FRAME.test(m[1])).slice(0, 2);
  if (service.length === 0) return null;
  const test = frames.find((m) => TEST_FRAME.test(m[1]));
  return { caller: service.map(at).join(' ← '), test: test ? at(test) : null };
}

function record(request: () => Record<string, unknown>): void {
  const found = callers();
  if (!found || !directory) return;
  let shapes;
  try {
    shapes = requestQueries(request());
  } catch {
    return; // An invalid query: the client rejects it itself, no index question.
  }
  const key = JSON.stringify([shapes, found.caller]);
  if (seen.has(key)) return;
  seen.add(key);
  const line: RecordedQuery = { shapes, ...found };
  appendFileSync(join(directory, `queries-${process.pid}.jsonl`), `${JSON.stringify(line)}\n`);
}

type Method = (this: { toProto(): Record<string, unknown> }, ...args: unknown[]) => unknown;

function wrap(prototype: Record<string, Method>, name: string): void {
  const original = prototype[name];
  prototype[name] = function (this: { toProto(): Record<string, unknown> }, ...args: unknown[]) {
    record(() => this.toProto());
    return original.apply(this, args);
  };
}

type ClientModule = { Query: { prototype: Record<string, Method> } };

/** AggregateQuery is not exported: its prototype is wrapped when the first count()/aggregate() builds one. */
function wrapAggregatesOf(queryPrototype: Record<string, Method>): void {
  const wrapped = new WeakSet<object>();
  for (const name of ['count', 'aggregate']) {
    const build = queryPrototype[name];
    queryPrototype[name] = function (this: { toProto(): Record<string, unknown> }, ...args: unknown[]) {
      const aggregateQuery = build.apply(this, args) as object;
      const prototype = Object.getPrototypeOf(aggregateQuery) as Record<string, Method>;
      if (!wrapped.has(prototype)) {
        wrapped.add(prototype);
        wrap(prototype, '_getResponse');
      }
      return aggregateQuery;
    };
  }
}

if (directory) {
  // The client's own files require its index circularly while it loads: those get the module
  // as it stands, and only the outermost load wraps it, once.
  let loading = false;
  jest.doMock('@google-cloud/firestore', () => {
    if (loading) return jest.requireActual<ClientModule>('@google-cloud/firestore');
    loading = true;
    try {
      const actual = jest.requireActual<ClientModule>('@google-cloud/firestore');
      wrap(actual.Query.prototype, '_getResponse');
      wrap(actual.Query.prototype, 'stream');
      wrapAggregatesOf(actual.Query.prototype);
      return actual;
    } finally {
      loading = false;
    }
  });
}
