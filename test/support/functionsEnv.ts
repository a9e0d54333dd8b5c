import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The variables of functions/.env, as the Firebase CLI hands them to the deployed functions. */
export function functionsDotEnv(): Record<string, string> {
  const text = readFileSync(join(__dirname, '..', '..', 'functions', '.env'), 'utf8');
  const entries = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const at = line.indexOf('=');
      return [line.slice(0, at), line.slice(at + 1)] as const;
    });
  return Object.fromEntries(entries);
}

/** Loads the deployed entry point (functions/lib/index.js) with functions/.env applied. */
export function requireDeployedEntry(): Record<string, unknown> {
  Object.assign(process.env, functionsDotEnv());
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(join(__dirname, '..', '..', 'functions', 'lib', 'index.js'));
}
