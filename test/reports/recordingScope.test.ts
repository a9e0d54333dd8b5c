/**
 * The fixture the report measurements share (fixtures/rollupSeeding.ts): a scope that records
 * each masked read a report makes, still answering it, and the seeding's batched commit.
 */
import { commitInBatches, recordingMaskedReads, type SeedWrite } from '../../fixtures/rollupSeeding';
import { EnvScope } from '../../functions/src/store/scope';
import { createTestService, seedProject } from '../support/harness';

const RecordingScope = recordingMaskedReads(EnvScope);

const service = createTestService();

describe('report measurement fixtures', () => {
  it('commits more documents than one batch holds, merging into what is there', async () => {
    const { projectId } = await seedProject(service);
    const scope = new EnvScope(service.deps.db, projectId, 'test');
    const sets: SeedWrite[] = Array.from({ length: 450 }, (_, i) => ({ ref: scope.doc('seedCheck', `d${i}`), data: { n: i } }));
    await commitInBatches(service.deps.db, sets);
    await commitInBatches(service.deps.db, [{ ref: scope.doc('seedCheck', 'd0'), data: { m: 1 } }]);
    const stored = await service.deps.db.getAll(...sets.map((s) => s.ref));
    expect(stored.filter((snapshot) => snapshot.exists)).toHaveLength(450);
    expect(stored[449].data()).toEqual({ n: 449 });
    expect(stored[0].data()).toEqual({ n: 0, m: 1 });
  });

  it('records each masked read with its documents and mask, and still answers it masked', async () => {
    const { projectId } = await seedProject(service);
    const plain = new EnvScope(service.deps.db, projectId, 'test');
    const refs = [plain.doc('seedCheck', 'a'), plain.doc('seedCheck', 'b')];
    await commitInBatches(service.deps.db, refs.map((ref, i) => ({ ref, data: { kept: i, dropped: 'x' } })));

    const recorder = new RecordingScope(service.deps.db, projectId, 'test');
    const snapshots = await recorder.getAllMasked(refs, ['kept']);
    expect(snapshots.map((s) => s.data())).toEqual([{ kept: 0 }, { kept: 1 }]);
    await recorder.getAllMasked([refs[1]], []);
    expect(recorder.reads.map((read) => ({ paths: read.refs.map((r) => r.path), mask: read.mask }))).toEqual([
      { paths: refs.map((r) => r.path), mask: ['kept'] },
      { paths: [refs[1].path], mask: [] },
    ]);
  });
});
