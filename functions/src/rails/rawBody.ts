import { isUtf8 } from 'node:buffer';
import { describeJsonProblem, findJsonProblem } from '../wire/jsonShape';

/**
 * Rail notifications are verified over the raw bytes before anything in them is judged (the
 * webhook routes take `rawBody: true`, so the pipeline neither parses nor refuses them): a
 * verified body that cannot be used is journaled as rejected (rejection.ts); an unverified one
 * is refused without a word about its content.
 */

/**
 * The body as JSON, only to choose how to verify it (which mode's secret, where the signed
 * payload is); undefined when it is not JSON. Nothing read here is trusted or stored.
 */
export function unverifiedJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Verified bytes as JSON, and why they cannot be used, if so: not UTF-8, not JSON (then no
 * value), strings not well-formed or nested too deep (the value is kept, so that a usable event
 * id in it still names the rejection).
 */
export function parseVerifiedJson(raw: Buffer): { value?: unknown; problem: string | null } {
  if (!isUtf8(raw)) return { problem: 'malformed_body: the body is not UTF-8' };
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    return { problem: 'malformed_body: the body is not JSON' };
  }
  const shape = findJsonProblem(value);
  return { value, problem: shape ? `malformed_body: ${describeJsonProblem(shape)}` : null };
}
