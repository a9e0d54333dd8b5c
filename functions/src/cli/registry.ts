import { DomainError } from '../errors/domain';
import type { Command } from './command';
import { operatorErrorOf } from './operatorError';
import { catalogCommands } from './commands/catalog';
import { demoCommands } from './commands/demo';
import { eventCommands } from './commands/events';
import { identityCommands } from './commands/identity';
import { keyCommands } from './commands/keys';
import { projectCommands } from './commands/projects';
import { railCommands } from './commands/rails';
import { stripeRailCommands } from './commands/railsStripe';
import { symbolicateCommands } from './commands/symbolicate';
import { webhookCommands } from './commands/webhooks';
import { operatorCommands } from './commands/operators';
import { workerCommands } from './commands/workers';
import { migrateCommands } from './commands/migrate';
import { reportCommands } from './commands/reports';
import { sourcemapCommands } from './commands/sourcemaps';

/** Every command's domain refusals become the operator's errors (operatorErrorOf, once). */
function operatorErrors(command: Command): Command {
  return {
    ...command,
    run: async (values, env) => {
      try {
        return await command.run(values, env);
      } catch (err) {
        if (err instanceof DomainError) throw operatorErrorOf(err);
        throw err;
      }
    },
  };
}

/** Every operator command. A capability adds its own file under commands/ and lists it here. */
export const COMMANDS: Command[] = [...projectCommands, ...keyCommands, ...demoCommands, ...symbolicateCommands, ...eventCommands, ...catalogCommands, ...stripeRailCommands, ...railCommands, ...identityCommands, ...webhookCommands, ...operatorCommands, ...workerCommands, ...migrateCommands, ...sourcemapCommands, ...reportCommands].map(operatorErrors);
