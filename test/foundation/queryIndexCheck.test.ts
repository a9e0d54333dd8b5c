/**
 * The suite-wide index check: the setup file (test/support/queryRecorder.ts) records the shape
 * of each query the service runs, not the ones a test runs to inspect the store, and
 * globalTeardown.ts refuses the run when the planner says production has no index for one.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listConflicts } from '../../functions/src/identity/conflicts';
import { EnvScope } from '../../functions/src/store/scope';
import { createTestService, seedProject } from '../support/harness';
import { readIndexConfig } from '../support/indexEntries';
import { QUERY_LOG_DIR_VARIABLE, readRecordedQueries, refusedQueries, type RecordedQuery } from '../support/queryLog';

describe('recording the service queries of a test file', () => {
  it("records a service query with its caller, and leaves the test's own query out", async () => {
    const directory = process.env[QUERY_LOG_DIR_VARIABLE]!;
    const service = createTestService();
    const project = await seedProject(service);
    const scope = new EnvScope(service.deps.db, project.projectId, 'test');
    await listConflicts(scope);
    // The test's own inspections of the store, on fields no index serves (and no service query
    // uses): directly, and through the store's funnel that runs any query it is given.
    await scope.collection('identityConflicts').where('inspectedByTestOnly', '>', 0).orderBy('status').get();
    await scope.query(scope.collection('identityConflicts').where('inspectedThroughScope', '>', 0));

    const log = join(directory, `queries-${process.pid}.jsonl`);
    expect(existsSync(log)).toBe(true);
    const recorded = readFileSync(log, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as RecordedQuery);
    // The worker's file holds the queries of every test file it ran: this one's name this file.
    const conflicts = recorded.find((q) => q.caller.startsWith('functions/src/identity/conflicts.ts:') && q.test?.startsWith('test/foundation/queryIndexCheck.test.ts:'));
    expect(conflicts).toMatchObject({
      shapes: [{ collectionGroup: 'identityConflicts', collectionGroupQuery: false, filters: [{ field: 'status', op: 'EQUAL' }], orderBy: [] }],
    });
    const fields = recorded.flatMap((q) => q.shapes.flatMap((s) => s.filters.map((f) => f.field)));
    expect(fields).not.toContain('inspectedByTestOnly');
    expect(fields).not.toContain('inspectedThroughScope');
  });
});

describe('checking the recorded queries', () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'tessera-query-check-'));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  const line = (query: RecordedQuery) => `${JSON.stringify(query)}\n`;
  const auditTrail = (direction: 'ASCENDING' | 'DESCENDING'): RecordedQuery => ({
    shapes: [{ collectionGroup: 'audit', collectionGroupQuery: false, filters: [{ field: 'customerId', op: 'EQUAL' }], orderBy: [{ field: 'processedAt', direction }] }],
    caller: 'functions/src/dashboard/customerHistory.ts:39',
    test: 'test/dashboard/history.test.ts:12',
  });

  it('reads every worker file and refuses each unserved shape once, with its caller and reason', () => {
    writeFileSync(join(directory, 'queries-1.jsonl'), line(auditTrail('DESCENDING')) + line(auditTrail('ASCENDING')));
    writeFileSync(join(directory, 'queries-2.jsonl'), line(auditTrail('ASCENDING')));
    const refusals = refusedQueries(readRecordedQueries(directory), readIndexConfig());
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toContain('collection audit where customerId EQUAL orderBy processedAt ASCENDING');
    expect(refusals[0]).toContain('issued by functions/src/dashboard/customerHistory.ts:39 (test test/dashboard/history.test.ts:12)');
    expect(refusals[0]).toContain('audit (COLLECTION): needs a composite index [customerId ==, processedAt asc]');
  });

  it('passes a run whose queries all have their indexes', () => {
    writeFileSync(join(directory, 'queries-1.jsonl'), line(auditTrail('DESCENDING')));
    expect(refusedQueries(readRecordedQueries(directory), readIndexConfig())).toEqual([]);
  });
});
