import { createInterface } from 'node:readline/promises';
import type { Command } from './command';
import { OperatorError } from './operatorError';
import type { StoreTarget } from './store';

/**
 * Commands that cannot be undone. Without `--yes` they ask on a terminal, and refuse (a usage
 * error) when there is none to ask on: a script must say `--yes` to do them.
 */
export const IRREVERSIBLE_COMMANDS: ReadonlySet<string> = new Set(['keys revoke', 'projects archive', 'apps archive', 'webhooks delete']);

export const isIrreversible = (command: Pick<Command, 'name'>): boolean => IRREVERSIBLE_COMMANDS.has(command.name);

export async function confirmIrreversible(command: Pick<Command, 'name'>, target: StoreTarget): Promise<void> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw new OperatorError('invalid_argument', `tessera ${command.name} cannot be undone: pass --yes to confirm it (there is no terminal to ask on).`);
  }
  const prompt = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await prompt.question(`tessera ${command.name} cannot be undone. Change ${target.description}? Type yes to go on: `);
    if (answer.trim().toLowerCase() !== 'yes') throw new OperatorError('aborted', 'Not confirmed: nothing was changed.');
  } finally {
    prompt.close();
  }
}
