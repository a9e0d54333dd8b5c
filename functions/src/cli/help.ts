import type { Command } from './command';

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
    'Operator CLI of Tessera. Results are JSON on stdout; failures are JSON on stderr',
    '(exit 1, or 2 for a usage error). `tessera <command> --help` describes one command.',
    '',
    'Commands:',
  ];
  for (const [, members] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
    for (const command of members) lines.push(`  ${command.name.padEnd(width)}  ${command.summary}`);
  }
  return `${lines.join('\n')}\n`;
}

export function commandHelp(command: Command): string {
  const lines = [`Usage: tessera ${command.name} ${command.summary}`, '', 'Options:'];
  for (const [name, spec] of Object.entries(command.options)) {
    const value = spec.type === 'string' ? ' <value>' : '';
    const repeat = spec.multiple ? '   (repeatable)' : '';
    lines.push(`  --${name}${value}${repeat}`);
  }
  lines.push('  --help   (this text)');
  return `${lines.join('\n')}\n`;
}
