import type { DocumentSnapshot, Firestore } from 'firebase-admin/firestore';
import type { Clock } from '../clock';
import { DomainError } from '../errors/domain';
import { EnvScope, type KeyGate } from '../store/scope';
import { countedGet } from '../store/counted';
import { digestsEqual, sha256Hex, type ParsedKey } from './format';
import { learnFirstOrigin } from './originLearning';
import { keyIndexRef } from './paths';
import { keyRejection, type KeyRecord } from './record';
import { BoundedMap } from '../boundedMap';

/**
 * Key lookup with a per-instance cache.
 *
 * Revocation window: zero. A cached key is used only for the immutable binding (project, app,
 * environment, kind) and the platform locks; its mutable state is re-read on every request
 * through the key gate, which rides along with the request's first data read. A revoked,
 * expired or archived key therefore fails on the very next request on every instance.
 * Unknown keys are cached for NEGATIVE_TTL_MS so that a flood of bad keys costs no reads.
 */
const POSITIVE_TTL_MS = 60_000;
const NEGATIVE_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;

interface CacheEntry {
  record: KeyRecord | null;
  expiresAt: number;
}

export interface Authenticated {
  record: KeyRecord;
  /** Present when the record came from cache and must still be confirmed by the store. */
  gate: KeyGate<KeyRecord> | null;
}

export class KeyAuthenticator {
  private readonly cache = new BoundedMap<string, CacheEntry>(MAX_ENTRIES);

  constructor(
    private readonly db: Firestore,
    private readonly clock: Clock,
  ) {}

  async authenticate(key: ParsedKey): Promise<Authenticated> {
    const ref = keyIndexRef(this.db, key);
    const now = this.clock.now();
    const cached = this.cache.get(ref.path);
    if (cached && cached.expiresAt > now) {
      if (!cached.record) throw unknownKey();
      const record = cached.record;
      return { record, gate: { ref, accept: (snapshot) => this.accept(ref.path, key, snapshot) } };
    }
    const snapshot = await countedGet(ref);
    return { record: this.accept(ref.path, key, snapshot), gate: null };
  }

  /** Re-reads a key document fresh (after a lock failure on cached data, for example). */
  async refresh(key: ParsedKey): Promise<KeyRecord> {
    const ref = keyIndexRef(this.db, key);
    return this.accept(ref.path, key, await countedGet(ref));
  }

  /**
   * The partition of a key just authenticated: key lookup is where a request's scope is
   * established, so the unscoped handle stays here (http/auth.ts never holds it).
   */
  openScope(record: KeyRecord, gate: KeyGate<KeyRecord> | null): EnvScope {
    return new EnvScope(this.db, record.projectId, record.env, gate);
  }

  /**
   * Heartbeat's first-origin learning for a web app with an empty allowlist (originLearning.ts):
   * it writes the app and its keys' index documents, so it runs here, and drops the cached key.
   */
  async learnFirstOrigin(key: ParsedKey, appId: string, origin: string): Promise<string[] | null> {
    const learned = await learnFirstOrigin(this.db, appId, origin);
    if (learned) this.invalidate(keyIndexRef(this.db, key).path);
    return learned;
  }

  invalidate(path?: string): void {
    if (path) this.cache.delete(path);
    else this.cache.clear();
  }

  private accept(path: string, key: ParsedKey, snapshot: DocumentSnapshot<KeyRecord>): KeyRecord {
    const now = this.clock.now();
    const record = snapshot.data() ?? null;
    const matches = record !== null && record.kind === key.kind && record.env === key.env && hashMatches(record, key);
    this.remember(path, matches ? record : null, now);
    if (!matches) throw unknownKey();
    const rejection = keyRejection(record, now);
    if (rejection) throw rejection;
    return record;
  }

  private remember(path: string, record: KeyRecord | null, now: number): void {
    this.cache.set(path, { record, expiresAt: now + (record ? POSITIVE_TTL_MS : NEGATIVE_TTL_MS) });
  }
}

function hashMatches(record: KeyRecord, key: ParsedKey): boolean {
  if (key.kind === 'publishable') return record.display === key.value;
  return record.hash !== null && digestsEqual(record.hash, sha256Hex(key.value));
}

const unknownKey = (): DomainError => new DomainError('invalid_api_key', 'The API key is not recognised.');
