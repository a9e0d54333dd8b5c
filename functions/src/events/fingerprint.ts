import { hash } from 'node:crypto';

/**
 * The fingerprint of an error event groups occurrences of "the same error" for the throttle's
 * one-per-fingerprint-per-minute pass. It is part of the stored data, so it must stay stable:
 * change it only by introducing a new version prefix.
 *
 * v1 = first 32 hex chars of SHA-256 over `v1 \n name \n type \n message`, where
 * - `type` is the first string among properties `errorType`, `type`, `error.type`, `exception.type`;
 * - `message` is the first string among properties `message`, `errorMessage`, `error.message`,
 *   `exception.message`, normalised: UUIDs → `<uuid>`, `0x…` literals and runs of 8+ hex
 *   characters mixing digits and letters → `<hex>`, other digit runs → `<n>`, whitespace
 *   collapsed, trimmed, cut to 256 chars;
 * - a missing type or message counts as the empty string.
 * The level is deliberately not part of it: the same error logged as `warning` and `error` is one
 * error. Variable parts of messages (ids, counts, line numbers) are normalised away so that one
 * bug does not become thousands of fingerprints.
 */
export const FINGERPRINT_VERSION = 'v1';

const MESSAGE_LIMIT = 256;

export function errorFingerprint(name: string, properties: Record<string, unknown> | null): string {
  const type = firstString(properties, [['errorType'], ['type'], ['error', 'type'], ['exception', 'type']]);
  const message = normaliseMessage(firstString(properties, [['message'], ['errorMessage'], ['error', 'message'], ['exception', 'message']]));
  // One-shot `hash` (UTF-8, as `update(text, 'utf8')` hashed it): the same digest for a third of the cost.
  const digest = hash('sha256', [FINGERPRINT_VERSION, name, type, message].join('\n'), 'hex');
  return digest.slice(0, 32);
}

export function normaliseMessage(message: string): string {
  return message
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>')
    .replace(/\b0x[0-9a-f]+\b/gi, '<hex>')
    .replace(/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, '<hex>')
    .replace(/\d+/g, '<n>')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, MESSAGE_LIMIT);
}

function firstString(properties: Record<string, unknown> | null, paths: string[][]): string {
  if (!properties) return '';
  for (const path of paths) {
    let value: unknown = properties;
    for (const key of path) value = isRecord(value) ? value[key] : undefined;
    if (typeof value === 'string') return value;
  }
  return '';
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
