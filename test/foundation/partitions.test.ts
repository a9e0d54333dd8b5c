/**
 * The one way across partitions (store/partitions.ts): a collection-group query whose documents
 * each come with the scope of the partition their path names, one scope per partition; a
 * same-named collection anywhere else is never acted on.
 */
import { randomUUID } from 'node:crypto';
import { byPartition, partitionOf, queryAcrossPartitions, scopesOfProject } from '../../functions/src/store/partitions';
import { storedRecord } from '../../functions/src/store/converters';
import { createTestService } from '../support/harness';

it('names the partition of a document path only when the path is one', () => {
  expect(partitionOf('projects/p1/envs/test/sweepProbes/a', 'sweepProbes')).toEqual({ projectId: 'p1', env: 'test' });
  expect(partitionOf('projects/p1/envs/live/sweepProbes/a', 'sweepProbes')).toEqual({ projectId: 'p1', env: 'live' });
  expect(partitionOf('projects/p1/envs/staging/sweepProbes/a', 'sweepProbes')).toBeNull();
  expect(partitionOf('elsewhere/p1/envs/test/sweepProbes/a', 'sweepProbes')).toBeNull();
  expect(partitionOf('projects/p1/envs/test/customers/c/sweepProbes/a', 'sweepProbes')).toBeNull();
  expect(partitionOf('projects/p1/envs/test/otherProbes/a', 'sweepProbes')).toBeNull();
  expect(partitionOf('projects/p.1/envs/test/sweepProbes/a', 'sweepProbes')).toBeNull();
});

it('gives each document found the scope of its partition, and leaves out the rest', async () => {
  const { deps } = createTestService();
  const collection = `sweepProbes_${randomUUID().slice(0, 8)}`;
  const [p1, p2] = [`proj_a_${randomUUID().slice(0, 8)}`, `proj_b_${randomUUID().slice(0, 8)}`];
  const a = scopesOfProject(deps.db, p1);
  const b = scopesOfProject(deps.db, p2);
  await a.test.doc(collection, 'one').set({ n: 1 });
  await b.live.doc(collection, 'two').set({ n: 2 });
  await a.test.doc(collection, 'three').set({ n: 3 });
  // The same collection name outside any partition, and nested below a partition's document.
  await deps.db.collection(collection).doc('outside').set({ n: 4 });
  await a.live.doc('customers', 'c1').collection(collection).doc('nested').set({ n: 5 });

  const found = await queryAcrossPartitions(deps.db, collection, storedRecord<{ n: number }>(), (docs) => docs.orderBy('n'));
  expect(found.found).toBe(5);
  expect(found.documents.map(({ scope, doc }) => [scope.projectId, scope.env, doc.id, doc.data().n])).toEqual([
    [p1, 'test', 'one', 1],
    [p2, 'live', 'two', 2],
    [p1, 'test', 'three', 3],
  ]);
  expect(found.documents[0].scope).toBe(found.documents[2].scope);
  expect(found.documents[0].doc.ref.path).toBe(found.documents[0].scope.doc(collection, 'one').path);
  expect(byPartition(found.documents).map(({ scope, docs }) => [scope.projectId, docs.map((d) => d.id)])).toEqual([
    [p1, ['one', 'three']],
    [p2, ['two']],
  ]);
});
