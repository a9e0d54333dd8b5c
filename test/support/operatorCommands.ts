import type { CommandContext, Values } from '../../functions/src/cli/command';
import { OperatorError } from '../../functions/src/cli/operatorError';
import { COMMANDS } from '../../functions/src/cli/registry';
import type { TestService } from './harness';

/**
 * Operator commands run in-process against a test service's store and clock: `tessera` gives a
 * command's JSON result, `tesseraFails` the OperatorError it must throw. `service` is read at
 * call time (suites create theirs in beforeAll); so is `extra`, the optional parts of the context a
 * suite passes (a secret writer, a task queue).
 */
export function operatorCommands(service: () => TestService, extra: () => Partial<CommandContext> = () => ({})) {
  async function tessera(name: string, values: Values): Promise<any> {
    const command = COMMANDS.find((c) => c.name === name);
    if (!command) throw new Error(`no command ${name}`);
    return command.run(values, { db: service().deps.db, clock: service().clock, stdin: async () => '', ...extra() });
  }
  async function tesseraFails(name: string, values: Values): Promise<OperatorError> {
    try {
      await tessera(name, values);
    } catch (err) {
      if (err instanceof OperatorError) return err;
      throw err;
    }
    throw new Error(`expected ${name} to fail`);
  }
  return { tessera, tesseraFails };
}
