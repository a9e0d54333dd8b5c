/**
 * Guarantee: a route names the ports its handler uses beyond the pipeline's own, and app/ mounts
 * routes as `CompiledRoute<Deps>`, so a route needing a port the service's Deps does not have
 * does not compile. This file is type-checked by `tsc -p test` in `npm test`: if the check stopped
 * biting, the `@ts-expect-error` below would be unused and the type check would fail.
 */
import type { Deps } from '../../functions/src/app/deps';
import { route, type CompiledRoute } from '../../functions/src/http/route';
import type { TaskQueue } from '../../functions/src/tasks/queue';

const usesTheQueue = route<unknown, Record<string, string>, Record<string, string>, unknown, { tasks: TaskQueue }>({
  method: 'GET',
  path: '/v1/test/queue',
  key: 'none',
  handler: async (ctx) => ({ body: { named: typeof ctx.deps.tasks.enqueue } }),
});

const usesAMissingPort = route<unknown, Record<string, string>, Record<string, string>, unknown, { paymentsLedger: { post(): void } }>({
  method: 'GET',
  path: '/v1/test/ledger',
  key: 'none',
  handler: async (ctx) => {
    ctx.deps.paymentsLedger.post();
    return { body: {} };
  },
});

it('mounts a route whose ports Deps has, and refuses (at compile time) one whose port it lacks', () => {
  const mounted: CompiledRoute<Deps>[] = [usesTheQueue];
  // @ts-expect-error Deps has no `paymentsLedger`: the route cannot be mounted.
  const refused: CompiledRoute<Deps>[] = [usesAMissingPort];
  expect(mounted.map((r) => r.path)).toEqual(['/v1/test/queue']);
  expect(refused).toHaveLength(1);
});
