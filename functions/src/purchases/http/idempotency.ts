import { createHash } from 'node:crypto';
import { Timestamp, type DocumentReference, type DocumentSnapshot } from 'firebase-admin/firestore';
import { HOUR, SECOND } from '../../clock';
import { DomainError } from '../../errors/domain';
import { ApiError, invalidParam } from '../../http/errors';
import type { Reply, RequestContext } from '../../http/route';
import { ALREADY_EXISTS, FAILED_PRECONDITION } from '../../store/contention';
import { countedGet, countedWrite } from '../../store/counted';
import { storedRecord } from '../../store/converters';

/**
 * `Idempotency-Key` on purchase sync. One document per key under the key's partition,
 * `idempotency/{sha256(route + key)}`:
 *
 * - claimed with `create()` before the request runs, so two concurrent requests with one key
 *   can never both execute (the loser is told to retry: `429` with `Retry-After`);
 * - completed with the response when it is a 2xx, which later requests with the same key and
 *   body replay (`idempotent_replay: true`, `Idempotent-Replayed: true`) for 24 hours;
 * - released when the request fails, so only 2xx responses are ever cached;
 * - a different body under a used key is `400 idempotency_key_in_use`.
 *
 * A claim whose request died (lease passed) is taken over with a precondition on the
 * document's update time. `expiresAt` carries the Firestore TTL policy; the logic does not
 * rely on TTL deletion having happened.
 */
export const IDEMPOTENCY = 'idempotency';
export const IDEMPOTENCY_TTL_MS = 24 * HOUR;
export const IDEMPOTENCY_LEASE_MS = 60 * SECOND;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

interface IdempotencyRecord {
  route: string;
  requestHash: string;
  state: 'in_progress' | 'completed';
  status: number | null;
  body: unknown;
  createdAt: number;
  leaseUntil: number;
  expiresAt: Timestamp;
}

const idempotencyConverter = storedRecord<IdempotencyRecord>();


/**
 * `Response`: the route's 2xx body; a replay answers the body stored from the first answer of
 * the same route and key, with `idempotent_replay: true` (which the route's schema admits).
 */
export async function withIdempotency<Response>(ctx: RequestContext<unknown, unknown, unknown, unknown>, route: string, run: () => Promise<Reply<Response>>): Promise<Reply<Response>> {
  const key = ctx.header('idempotency-key');
  if (key === undefined) return run();
  if (!KEY_PATTERN.test(key)) throw invalidParam('Idempotency-Key must be 1–255 printable ASCII characters.');
  const ref = ctx.scope.doc(IDEMPOTENCY, sha256(`${route}\n${key}`)).withConverter(idempotencyConverter);
  const requestHash = sha256(canonicalJson(ctx.body));

  const [existing] = await ctx.scope.getAll(ref);
  const claim = await claimOrAnswer(ctx, ref, existing, route, requestHash);
  if ('reply' in claim) return claim.reply as Reply<Response>;

  let reply: Reply<Response>;
  try {
    reply = await run();
  } catch (err) {
    await release(ctx, ref, claim.writeTime);
    throw err;
  }
  const status = reply.status ?? 200;
  if (status >= 200 && status < 300) {
    await countedWrite(() => ref.update({ state: 'completed', status, body: reply.body }, { lastUpdateTime: claim.writeTime })).catch(ignorePrecondition);
  } else {
    await release(ctx, ref, claim.writeTime);
  }
  return reply;
}

type ClaimOutcome = { writeTime: Timestamp } | { reply: Reply };

async function claimOrAnswer(ctx: RequestContext<unknown, unknown, unknown, unknown>, ref: DocumentReference<IdempotencyRecord>, snapshot: DocumentSnapshot<IdempotencyRecord>, route: string, requestHash: string): Promise<ClaimOutcome> {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const now = ctx.deps.clock.now();
    const record = snapshot.data() ?? null;
    const live = record !== null && record.createdAt + IDEMPOTENCY_TTL_MS > now;
    if (record && live) {
      if (record.requestHash !== requestHash || record.route !== route) {
        throw new ApiError('idempotency_key_in_use', 'This Idempotency-Key was already used with a different request body.');
      }
      if (record.state === 'completed') return { reply: replay(record) };
      if (record.leaseUntil > now) throw inProgress(record.leaseUntil - now);
    }
    const fresh: IdempotencyRecord = {
      route,
      requestHash,
      state: 'in_progress',
      status: null,
      body: null,
      createdAt: now,
      leaseUntil: now + IDEMPOTENCY_LEASE_MS,
      expiresAt: Timestamp.fromMillis(now + IDEMPOTENCY_TTL_MS),
    };
    try {
      const result = await countedWrite(() => (snapshot.exists ? ref.update({ ...fresh }, { lastUpdateTime: snapshot.updateTime! }) : ref.create(fresh)));
      return { writeTime: result.writeTime };
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (code !== ALREADY_EXISTS && code !== FAILED_PRECONDITION) throw err;
      // Another request claimed the key between our read and our write: decide on its claim.
      snapshot = await countedGet(ref);
    }
  }
  throw inProgress(IDEMPOTENCY_LEASE_MS);
}

function replay(record: IdempotencyRecord): Reply {
  const body = typeof record.body === 'object' && record.body !== null ? { ...(record.body as Record<string, unknown>), idempotent_replay: true } : record.body;
  return { status: record.status ?? 200, body, headers: { 'Idempotent-Replayed': 'true' } };
}

/** The headers come from the one mapping (http/errors.ts); nothing to sample away, so the hint is 1. */
function inProgress(retryAfterMs: number): DomainError<'rate_limited'> {
  return new DomainError('rate_limited', 'A request with this Idempotency-Key is still in progress; retry after the Retry-After interval.', {
    retry: { retryAfterMs, sampleRate: 1 },
  });
}

async function release(ctx: RequestContext<unknown, unknown, unknown, unknown>, ref: DocumentReference<IdempotencyRecord>, writeTime: Timestamp): Promise<void> {
  await countedWrite(() => ref.delete({ lastUpdateTime: writeTime })).catch(ignorePrecondition);
}

/** A lost precondition means another request took the claim over; it owns the record now. */
function ignorePrecondition(err: unknown): void {
  const code = (err as { code?: unknown }).code;
  if (code !== FAILED_PRECONDITION && code !== 5 /* NOT_FOUND */) throw err;
}

const sha256 = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex');

/** JSON with object keys sorted, so the same body hashes the same whatever its key order or spacing. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value as Record<string, unknown>)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
