import type { Deps } from '../app/deps';

/**
 * What a migration uses of the service: the clock, the task queue (webhook fan-outs of its
 * grants), the secret store and the Stripe API edge (the gate's card-processor reads). Narrow so
 * that the operator CLI (`tessera migrate`) runs the same service against its own store.
 */
export type MigrationDeps = Pick<Deps, 'clock' | 'tasks' | 'secrets' | 'rails'>;
