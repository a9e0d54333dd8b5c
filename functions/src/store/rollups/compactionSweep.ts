import type { Firestore } from 'firebase-admin/firestore';
import { PROJECT_ID } from '../../ids';
import { scopesOfProject } from '../partitions';
import type { EnvScope } from '../scope';
import { compactRollupPeriods, recentPeriods } from './compaction';
import { EVENT_ROLLUPS, EVENT_SHARDS, REVENUE_ROLLUPS, REVENUE_SHARDS, SUBSCRIBER_ROLLUPS, SUBSCRIBER_SHARDS } from './model';

/** The sharded rollup collections the reports sum (error-group shards are per fingerprint, not per period). */
const COMPACTED_ROLLUPS = [
  { collection: SUBSCRIBER_ROLLUPS, shards: SUBSCRIBER_SHARDS },
  { collection: REVENUE_ROLLUPS, shards: REVENUE_SHARDS },
  { collection: EVENT_ROLLUPS, shards: EVENT_SHARDS },
] as const;

export interface CompactionSweepReport {
  partitions: number;
  periodsCompacted: number;
  figuresMoved: number;
  failed: number;
}

/** Partitions compacted at once: each is a few small transactions. */
const PARALLEL = 4;

/**
 * The hourly compaction (the rollup worker runs it): every partition's recent periods
 * (`recentPeriods`) of each sharded rollup collection, for every project's two environments.
 * A partition that fails is reported and compacted on the next run; nothing depends on a run
 * having happened (compaction.ts).
 */
export async function compactAllRollups(db: Firestore, now: number, onFailure: FailureLog): Promise<CompactionSweepReport> {
  const projects = await db.collection('projects').select().get();
  const scopes = projects.docs.filter((doc) => PROJECT_ID.is(doc.id)).flatMap((doc) => Object.values(scopesOfProject(db, doc.id)));
  return compactPartitions(scopes, recentPeriods(now), onFailure);
}

type FailureLog = (scope: EnvScope, collection: string, err: unknown) => void;

/** Compacts `periods` of each sharded rollup collection in each of `scopes`, a few partitions at a time. */
export async function compactPartitions(scopes: readonly EnvScope[], periods: readonly string[], onFailure: FailureLog): Promise<CompactionSweepReport> {
  const report: CompactionSweepReport = { partitions: scopes.length, periodsCompacted: 0, figuresMoved: 0, failed: 0 };
  let next = 0;
  const worker = async () => {
    while (next < scopes.length) {
      const scope = scopes[next++];
      for (const { collection, shards } of COMPACTED_ROLLUPS) {
        try {
          const result = await compactRollupPeriods(scope, collection, shards, periods);
          report.periodsCompacted += result.periodsCompacted;
          report.figuresMoved += result.figuresMoved;
        } catch (err) {
          report.failed += 1;
          onFailure(scope, collection, err);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return report;
}
