import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Env } from '../store/env';
import { KEY_ID } from '../ids';

export type KeyKind = 'publishable' | 'secret';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const KEY_SUFFIX_LENGTH = 32;
const KEY_PATTERN = /^cd_(pub|sk)_(test|live)_([A-Za-z0-9]{16,128})$/;

/** Bytes from here up are rejected: 248 = 4 × 62, so a kept byte modulo 62 is uniform. */
const UNBIASED_BYTES = Math.floor(256 / ALPHABET.length) * ALPHABET.length;

/**
 * Random bytes drawn 4 KiB at a time (as `randomInt` pools its own draws): one OpenSSL call per
 * ~160 tokens instead of one per character. Each byte is handed out once.
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolAt = 0;

function nextRandomByte(): number {
  if (poolAt >= pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolAt = 0;
  }
  return pool[poolAt++];
}

/**
 * Uniform random base62 string. Bytes of 248 and above are rejected, so each kept byte modulo 62
 * is uniform, unlike a plain `byte % 62`. About 5× cheaper than a `randomInt` per character,
 * which cost ~0.3 ms per 100-event batch of server event ids.
 */
export function randomToken(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = nextRandomByte();
    if (byte < UNBIASED_BYTES) out += ALPHABET[byte % ALPHABET.length];
  }
  return out;
}

export function mintKey(kind: KeyKind, env: Env): string {
  return `cd_${kind === 'publishable' ? 'pub' : 'sk'}_${env}_${randomToken(KEY_SUFFIX_LENGTH)}`;
}

export function newKeyId(): string {
  return `${KEY_ID.prefix}${randomToken(20)}`;
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
