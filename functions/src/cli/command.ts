import type { ParseArgsConfig } from 'node:util';
import type { Firestore } from 'firebase-admin/firestore';
import type { Clock } from '../clock';
import type { SecretWriter } from '../secrets/writer';
import type { TaskQueue } from '../tasks/queue';
import { OperatorError } from './operatorError';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;
export type Values = Record<string, string | boolean | string[] | undefined>;

export interface CommandContext {
  db: Firestore;
  clock: Clock;
  /** Standard input, for commands that read a payload (symbolicate). */
  stdin: () => Promise<string>;
  /**
   * Where commands that mint a secret store it (webhook signing secrets); when absent (the CLI),
   * `createOperatorSecretWriter()` chooses. Tests pass a writer to a temporary file.
   */
  secrets?: SecretWriter;
  /**
   * Where commands that start background work enqueue it (`webhooks test|replay`); when absent
   * (the CLI), `operatorTasks()` chooses. Tests pass their service's in-process queue.
   */
  tasks?: TaskQueue;
  /**
   * Where a long command shows its progress (`migrate`): the CLI's stdout, with whether it is a
   * terminal (a progress bar) or not (plain lines). Absent (tests in-process, `--format json`): none.
   */
  progress?: ProgressOutput;
  /** The store the CLI is about to change, as `configureStore` described it (`local stack …`, `project …`). */
  target?: string;
}

export interface ProgressOutput {
  isTTY: boolean;
  write(text: string): void;
}

/**
 * One operator command: `tessera <name…> --option value`. Output is JSON on stdout, or with
 * `--format table` (commands that define `table`) a readable table, the default for them.
 */
export interface Command {
  name: string;
  summary: string;
  options: OptionSpec;
  /** Positional arguments (`sourcemaps upload … DIR`), in order; `values._` holds them. */
  positionals?: { name: string; description: string }[];
  /** Renders the result for a person: makes `--format table|json` an option, `table` the default. */
  table?(result: unknown): string;
  run(values: Values, ctx: CommandContext): Promise<unknown>;
}

/** The positional arguments of a command (see `Command.positionals`). */
export function positionalArgs(values: Values): string[] {
  const value = values._;
  return Array.isArray(value) ? value : [];
}

export function requireString(values: Values, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new OperatorError('invalid_argument', `--${name} is required.`);
  return value;
}

export function optionalString(values: Values, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function stringList(values: Values, name: string): string[] {
  const value = values[name];
  return Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
}

export function requireOneOf<T extends string>(values: Values, name: string, allowed: readonly T[]): T {
  const value = requireString(values, name);
  if (!allowed.includes(value as T)) throw new OperatorError('invalid_argument', `--${name} must be one of ${allowed.join(', ')}.`);
  return value as T;
}
