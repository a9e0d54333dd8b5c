/** How often the retention worker runs (its own module: index.ts declares it without loading the worker). */
export const RETENTION_SCHEDULE = 'every 60 minutes';
