import { parseArgs } from 'node:util';
import { systemClock } from '../clock';
import type { Command } from './command';
import { commandHelp, helpTopic, isHelpFlag, overview, wantsOverview } from './help';
import { describeFailure } from './failure';
import { configureStore } from './store';

/**
 * `tessera <command> [options]`: JSON on stdout; on failure a JSON error on stderr and a
 * non-zero exit (2 for usage errors, 1 otherwise). Never prints a stored secret. Help
 * (`tessera`, `help`, `--help`, `COMMAND --help`) is plain text on stdout; an unknown command
 * prints the command list on stderr with exit 2.
 */
async function main(argv: string[]): Promise<number> {
  const { COMMANDS } = await import('./registry');
  if (wantsOverview(argv)) {
    process.stdout.write(overview(COMMANDS));
    return 0;
  }
  const topic = helpTopic(argv);
  const command = findCommand(COMMANDS, topic ?? argv);
  if (!command) {
    process.stderr.write(`Unknown command: tessera ${(topic ?? argv).join(' ')}\n\n${overview(COMMANDS)}`);
    return 2;
  }
  const rest = argv.slice(command.name.split(' ').length);
  if (topic || rest.some(isHelpFlag)) {
    process.stdout.write(commandHelp(command));
    return 0;
  }
  let values;
  try {
    values = parseArgs({ args: rest, options: command.options, strict: true, allowPositionals: false }).values;
  } catch (err) {
    fail({ code: 'usage', message: (err as Error).message, usage: `tessera ${command.name} ${command.summary}` });
    return 2;
  }
  try {
    configureStore();
    const { db } = await import('../store/firestore');
    const result = await command.run(values as Record<string, string | boolean | string[] | undefined>, { db: db(), clock: systemClock, stdin: readStdin });
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (err) {
    // Domain errors arrive as OperatorErrors (registry.ts maps them, once); store refusals are put in words.
    fail(describeFailure(err));
    return 1;
  }
}

function findCommand(commands: Command[], argv: string[]): Command | undefined {
  return [...commands]
    .sort((a, b) => b.name.split(' ').length - a.name.split(' ').length)
    .find((c) => c.name.split(' ').every((word, i) => argv[i] === word));
}

function fail(error: Record<string, unknown>): void {
  process.stderr.write(`${JSON.stringify({ error })}\n`);
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    fail({ code: 'error', message: err instanceof Error ? err.message : String(err) });
    process.exit(1);
  },
);
