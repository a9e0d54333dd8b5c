import type { Command, OptionSpec } from './command';
import { optionsOf } from './globalOptions';
import { optionDescription } from './optionHelp';

/**
 * Usage text for a person. Help goes to stdout (exit 0); the command list after an unknown
 * command goes to stderr (exit 2). Command results stay JSON: only help is plain text.
 */
const HELP_FLAGS = new Set(['--help', '-h']);

export const isHelpFlag = (arg: string): boolean => HELP_FLAGS.has(arg);

/** `tessera`, `tessera help`, `tessera --help`, `tessera -h`: the command list. */
export function wantsOverview(argv: string[]): boolean {
  return argv.length === 0 || (argv.length === 1 && (argv[0] === 'help' || isHelpFlag(argv[0])));
}

/** `tessera help keys rotate`: the words naming a command after `help`, else null. */
export function helpTopic(argv: string[]): string[] | null {
  return argv[0] === 'help' && argv.length > 1 ? argv.slice(1) : null;
}

export function overview(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const groups = new Map<string, Command[]>();
  for (const command of commands) {
    const group = command.name.split(' ')[0];
    groups.set(group, [...(groups.get(group) ?? []), command]);
  }
  const lines = [
    'Usage: tessera <command> [options]',
    '',
    'Operator CLI of Tessera. Results are JSON (or a table) on stdout; failures are JSON on',
    'stderr (exit 1, or 2 for a usage error). `tessera <command> --help` describes one command.',
    'It changes the running local stack or FIRESTORE_EMULATOR_HOST; a production Firebase',
    'project only with --firebase-project ID (never from GOOGLE_CLOUD_PROJECT alone).',
    '',
    'Commands:',
  ];
  for (const [, members] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
    for (const command of members) lines.push(`  ${command.name.padEnd(width)}  ${command.summary}`);
  }
  return `${lines.join('\n')}\n`;
}

/** One command's usage: every option with what it means (optionHelp.ts), and its positional arguments. */
export function commandHelp(command: Command, options: OptionSpec = optionsOf(command)): string {
  const positionals = (command.positionals ?? []).map((p) => ` ${p.name}`).join('');
  const lines = [`Usage: tessera ${command.name} ${command.summary}`];
  if (positionals) lines.push(`       (arguments:${positionals})`);
  const rows: [string, string][] = (command.positionals ?? []).map((p) => [`  ${p.name}`, p.description]);
  for (const [name, spec] of Object.entries(options)) {
    const value = spec.type === 'string' ? ' <value>' : '';
    const repeat = spec.multiple ? '   (repeatable)' : '';
    rows.push([`  --${name}${value}${repeat}`, optionDescription(command.name, name) ?? '']);
  }
  rows.push(['  --help', 'This text.']);
  const width = Math.max(...rows.map(([left]) => left.length));
  lines.push('', 'Options:', ...rows.map(([left, text]) => `${left.padEnd(width)}  ${text}`.trimEnd()));
  return `${lines.join('\n')}\n`;
}
