import * as logger from 'firebase-functions/logger';
import type { BackgroundDeps } from '../../tasks/background';
import { compactAllRollups, type CompactionSweepReport } from '../../store/rollups/compactionSweep';

/**
 * The rollup worker, hourly (`rollupWorker` in index.ts): compacts every partition's recent
 * report rollup periods (store/rollups/compaction.ts). Reports are exact whether or not it ran;
 * it only lowers what they decode. Runs may overlap (each period is one transaction).
 */
export async function runRollupWorker(deps: BackgroundDeps): Promise<CompactionSweepReport> {
  const report = await compactAllRollups(deps.db, deps.clock.now(), (scope, collection, err) =>
    logger.warn('rollups: compaction failed; reports stay exact (they sum every shard), retried on the next run', {
      projectId: scope.projectId,
      env: scope.env,
      collection,
      detail: err instanceof Error ? err.message : String(err),
    }),
  );
  logger.info('rollup compaction run completed', { ...report });
  return report;
}
