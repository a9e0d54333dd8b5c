import { createHash, timingSafeEqual } from 'node:crypto';
import { randomToken } from '../ids/random';
import type { Env } from '../store/env';

export type KeyKind = 'publishable' | 'secret';

const KEY_SUFFIX_LENGTH = 32;
const KEY_PATTERN = /^cd_(pub|sk)_(test|live)_([A-Za-z0-9]{16,128})$/;

export function mintKey(kind: KeyKind, env: Env): string {
  return `cd_${kind === 'publishable' ? 'pub' : 'sk'}_${env}_${randomToken(KEY_SUFFIX_LENGTH)}`;
}

export function newKeyId(): string {
  return `key_${randomToken(20)}`;
}

export interface ParsedKey {
  kind: KeyKind;
  env: Env;
  value: string;
}

/** Returns null for anything that is not shaped like a Tessera API key. */
export function parseKey(value: string): ParsedKey | null {
  const match = KEY_PATTERN.exec(value);
  if (!match) return null;
  return { kind: match[1] === 'pub' ? 'publishable' : 'secret', env: match[2] as Env, value };
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex digests (or any two secrets of equal encoding). */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** What a listing shows of a secret key: its prefix and nothing else. */
export function maskSecret(key: string): string {
  const parsed = parseKey(key);
  return parsed ? `cd_sk_${parsed.env}_${'•'.repeat(8)}` : '•'.repeat(8);
}
