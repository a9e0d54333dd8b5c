import { DomainError } from '../errors/domain';
import { isEntitlementKey } from '../entitlements/catalog';
import type { IdentityKind } from '../customers/model';
import { sanitizeTraits, type Traits } from '../identity/traits';

/** At most 1,000 rows per request (spec › Limits). */
export const MAX_MIGRATION_ROWS = 1000;

/**
 * One row of `POST /v1/migration/users`, checked on its own: a bad row becomes an entry of
 * `details.errors` (with a machine-readable reason) and never blocks its siblings.
 *
 * Rail identifiers are accepted under the spec's names and under the rails' own names
 * (`cardCustomerId` / `stripeCustomerId`, `storeAOriginalTransactionId` /
 * `appleOriginalTransactionId`, …); giving both with different values is an error.
 */
export interface MigrationRow {
  developerUserId: string;
  email: string | null;
  traits: Traits;
  /** Identity hints in order of authority: the developer user id first, then the rail ids. */
  hints: { kind: IdentityKind; id: string }[];
  stripeCustomerId: string | null;
  /** Entitlement keys asserted true, sorted and unique. */
  assertedKeys: string[];
}

export type RowCheck = { ok: true; row: MigrationRow } | { ok: false; reason: string; developerUserId: string | null };

const MAX_USER_ID = 256;
const MAX_EMAIL = 320;
const MAX_DISPLAY_NAME = 1024;
const NO_CONTROL_CHARS = /^[^\u0000-\u001f\u007f]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface RailField {
  names: [spec: string, rail: string];
  kind: IdentityKind;
  maxLength: number;
  normalise?: (value: string) => string | null;
}

const RAIL_FIELDS: RailField[] = [
  { names: ['cardCustomerId', 'stripeCustomerId'], kind: 'stripe', maxLength: 255 },
  { names: ['storeAOriginalTransactionId', 'appleOriginalTransactionId'], kind: 'apple_otx', maxLength: 255 },
  { names: ['storeAAppAccountToken', 'appleAppAccountToken'], kind: 'apple_aat', maxLength: 36, normalise: (v) => (UUID.test(v.toLowerCase()) ? v.toLowerCase() : null) },
  { names: ['storeBPurchaseToken', 'googlePurchaseToken'], kind: 'google_token', maxLength: 4096 },
  { names: ['storeBObfuscatedAccountId', 'googleObfuscatedAccountId'], kind: 'google_account', maxLength: 256 },
];

export function checkRow(input: unknown): RowCheck {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return { ok: false, reason: 'row_invalid', developerUserId: null };
  const raw = input as Record<string, unknown>;
  const userId = raw.developerUserId;
  const shownId = typeof userId === 'string' ? userId.slice(0, MAX_USER_ID) : null;
  const fail = (reason: string): RowCheck => ({ ok: false, reason, developerUserId: shownId });

  if (userId === undefined || userId === null || userId === '') return fail('developerUserId_required');
  if (typeof userId !== 'string' || userId.length > MAX_USER_ID || !NO_CONTROL_CHARS.test(userId)) return fail('developerUserId_invalid');

  const email = present(raw.email);
  if (email !== null && (typeof email !== 'string' || email.length > MAX_EMAIL || !/^[^\s@]+@[^\s@]+$/.test(email))) return fail('email_invalid');
  const displayName = present(raw.displayName);
  if (displayName !== null && (typeof displayName !== 'string' || displayName.length > MAX_DISPLAY_NAME)) return fail('displayName_invalid');

  let traits: Traits;
  try {
    traits = sanitizeTraits(present(raw.traits));
  } catch (err) {
    if (err instanceof DomainError) return fail('traits_invalid');
    throw err;
  }
  if (typeof displayName === 'string') traits = { ...traits, displayName };

  const hints: MigrationRow['hints'] = [{ kind: 'developer', id: userId }];
  let stripeCustomerId: string | null = null;
  for (const field of RAIL_FIELDS) {
    const values = field.names.map((name) => present(raw[name])).filter((v) => v !== null);
    if (values.length === 0) continue;
    const [specName] = field.names;
    if (values.some((v) => typeof v !== 'string' || v.length > field.maxLength || !/^\S+$/.test(v))) return fail(`${specName}_invalid`);
    const normalised = (values as string[]).map((v) => (field.normalise ? field.normalise(v) : v));
    if (normalised.some((v) => v === null)) return fail(`${specName}_invalid`);
    if (new Set(normalised).size > 1) return fail(`${specName}_conflicting_values`);
    hints.push({ kind: field.kind, id: normalised[0]! });
    if (field.kind === 'stripe') stripeCustomerId = normalised[0]!;
  }

  const entitlements = present(raw.entitlements);
  const assertedKeys: string[] = [];
  if (entitlements !== null) {
    if (typeof entitlements !== 'object' || Array.isArray(entitlements)) return fail('entitlements_invalid');
    for (const [key, value] of Object.entries(entitlements as Record<string, unknown>)) {
      if (!isEntitlementKey(key)) return fail('entitlementKey_invalid');
      if (value) assertedKeys.push(key);
    }
  }
  return {
    ok: true,
    row: { developerUserId: userId, email: typeof email === 'string' ? email : null, traits, hints, stripeCustomerId, assertedKeys: [...new Set(assertedKeys)].sort() },
  };
}

/** Absent and null are the same for optional fields. */
function present(value: unknown): unknown {
  return value === undefined || value === null ? null : value;
}
