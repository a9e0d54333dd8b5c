/** How often the rollup worker compacts (its own module: index.ts declares it without loading the worker). */
export const ROLLUP_COMPACTION_SCHEDULE = 'every 60 minutes';
