import type { Command, OptionSpec } from './command';
import { isIrreversible } from './confirm';

/**
 * A command's options as the CLI parses them: its own, plus `--firebase-project` (every command:
 * the only way to target production, store.ts), `--format` (commands with a table) and `--yes`
 * (irreversible commands, confirm.ts).
 */
export function optionsOf(command: Command): OptionSpec {
  return {
    ...command.options,
    'firebase-project': { type: 'string' },
    ...(command.table ? { format: { type: 'string' } } : {}),
    ...(isIrreversible(command) ? { yes: { type: 'boolean' } } : {}),
  };
}
