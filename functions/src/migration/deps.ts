import type { Clock } from '../clock';
import type { RailEdges } from '../rails/edges';
import type { SecretStore } from '../secrets/store';
import type { TaskQueue } from '../tasks/queue';

/**
 * What a migration uses of the service: the clock, the task queue (webhook fan-outs of its
 * grants), the secret store and the Stripe API edge (the gate's card-processor reads). Narrow so
 * that the operator CLI (`tessera migrate`) runs the same service against its own store.
 */
export interface MigrationDeps {
  clock: Clock;
  tasks: TaskQueue;
  secrets: SecretStore;
  rails: RailEdges;
}
