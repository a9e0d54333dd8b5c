import { appendFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { systemClock } from '../clock';
import type { Command, Values } from './command';
import { confirmIrreversible, isIrreversible } from './confirm';
import { optionsOf } from './globalOptions';
import { commandHelp, helpTopic, isHelpFlag, overview, wantsOverview } from './help';
import { describeFailure } from './failure';
import { configureStore } from './store';

/**
 * `tessera <command> [options]`: the result on stdout (JSON, or a table for commands that have
 * one); on failure a JSON error on stderr and a non-zero exit: 2 for every usage error (an
 * unknown option, a missing or invalid argument such as a bad `--env`, no store to talk to, an
 * unconfirmed irreversible command), 1 otherwise. A successful command writes nothing to stderr.
 * Never prints a stored secret. Help (`tessera`, `help`, `--help`, `COMMAND --help`) is plain
 * text on stdout; an unknown command prints the command list on stderr with exit 2.
 */
export const EXIT_USAGE = 2;
export const EXIT_FAILURE = 1;

/**
 * The service's structured logs (firebase-functions' logger, which binds the console methods
 * when first loaded) are for Cloud Logging, not for an operator's terminal: they go to the file
 * named by TESSERA_CLI_LOG, or nowhere, so stdout holds the result alone and stderr only failures.
 */
function routeServiceLogs(): void {
  const file = process.env.TESSERA_CLI_LOG;
  const sink = (...args: unknown[]): void => {
    if (file) appendFileSync(file, `${args.map(String).join(' ')}\n`);
  };
  for (const method of ['debug', 'info', 'log', 'warn', 'error'] as const) console[method] = sink;
}

async function main(argv: string[]): Promise<number> {
  routeServiceLogs();
  const { COMMANDS } = await import('./registry');
  if (wantsOverview(argv)) {
    process.stdout.write(overview(COMMANDS));
    return 0;
  }
  const topic = helpTopic(argv);
  const command = findCommand(COMMANDS, topic ?? argv);
  if (!command) {
    process.stderr.write(`Unknown command: tessera ${(topic ?? argv).join(' ')}\n\n${overview(COMMANDS)}`);
    return EXIT_USAGE;
  }
  const rest = argv.slice(command.name.split(' ').length);
  if (topic || rest.some(isHelpFlag)) {
    process.stdout.write(commandHelp(command));
    return 0;
  }
  const usage = (message: string, code = 'usage'): number => {
    fail({ code, message, usage: `tessera ${command.name} ${command.summary}`, help: `tessera ${command.name} --help` });
    return EXIT_USAGE;
  };
  let values: Values;
  try {
    const parsed = parseArgs({ args: rest, options: optionsOf(command) as ParseArgsConfig['options'], strict: true, allowPositionals: (command.positionals?.length ?? 0) > 0 });
    values = { ...(parsed.values as Values), _: parsed.positionals };
  } catch (err) {
    return usage((err as Error).message);
  }
  const expected = command.positionals ?? [];
  const given = values._ as string[];
  if (given.length !== expected.length) return usage(`expected ${expected.map((p) => p.name).join(' ') || 'no positional argument'}, got ${given.length ? given.join(' ') : 'none'}`);
  const format = values.format ?? 'table';
  if (command.table && format !== 'table' && format !== 'json') return usage('--format must be table or json.');

  try {
    const target = configureStore({ firebaseProject: typeof values['firebase-project'] === 'string' ? values['firebase-project'] : undefined });
    const toTerminal = process.stdout.isTTY === true;
    // A person sees which store is about to change before anything does; scripts get the result alone.
    if (toTerminal) process.stdout.write(`Target: ${target.description}\n`);
    if (isIrreversible(command) && values.yes !== true) await confirmIrreversible(command, target);
    const { db } = await import('../store/firestore');
    const table = command.table && format === 'table' ? command.table.bind(command) : null;
    const result = await command.run(values, {
      db: db(),
      clock: systemClock,
      stdin: readStdin,
      target: target.description,
      progress: table ? { isTTY: toTerminal, write: (text) => process.stdout.write(text) } : undefined,
    });
    process.stdout.write(table ? table(result) : `${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (err) {
    // Domain errors arrive as OperatorErrors (registry.ts maps them, once); store refusals are put in words.
    const failure = describeFailure(err);
    if (failure.code === 'invalid_argument') return usage(failure.message, failure.code);
    fail(failure);
    return EXIT_FAILURE;
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

/** Exits once stdout and stderr are flushed: a pipe takes a large result (a migration's refused rows) in several writes. */
function exitAfterFlush(code: number): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

main(process.argv.slice(2)).then(exitAfterFlush, (err) => {
  fail({ code: 'error', message: err instanceof Error ? err.message : String(err) });
  exitAfterFlush(EXIT_FAILURE);
});
