/** How often the webhook worker runs (its own module: index.ts declares it without loading the worker). */
export const WEBHOOK_WORKER_SCHEDULE = 'every 1 minutes';
