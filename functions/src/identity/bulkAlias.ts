import { ApiError, asApiError, invalidParam, missingParam } from '../http/errors';
import { route } from '../http/route';
import type { EnvScope } from '../store/scope';
import { linkIdentify, parseIdentifyInput } from './identifyService';

/**
 * `POST /v1/server/customers/alias` (secret key only): up to 1,000 identify rows in one call.
 * Each row is validated and linked like an identify call (self-asserted: rows carry no token,
 * and the per-user velocity cap, a guard against abusive clients, does not apply to the
 * server). A bad row is reported in `results` and never blocks its siblings.
 */
export const MAX_ALIAS_ROWS = 1000;
const ROW_CONCURRENCY = 8;

export const bulkAliasBodySchema = { type: 'object' } as const;

export type AliasRowResult =
  | { index: number; serviceCustomerId: string; mergePending: boolean }
  | { index: number; error: { code: string; message: string } };

export interface AliasBatchResponse {
  object: 'alias_batch';
  env: string;
  total: number;
  linked: number;
  mergePending: number;
  errors: number;
  results: AliasRowResult[];
}

export function parseLinks(body: Record<string, unknown>): unknown[] {
  const links = body.links;
  if (links === undefined || links === null || (Array.isArray(links) && links.length === 0)) {
    throw missingParam('`links` is required and must hold 1–1000 rows.');
  }
  if (!Array.isArray(links)) throw invalidParam('Invalid value for `links`: must be an array of 1–1000 rows.');
  if (links.length > MAX_ALIAS_ROWS) throw invalidParam(`Invalid value for \`links\`: at most ${MAX_ALIAS_ROWS} rows per request.`);
  return links;
}

async function aliasRow(scope: EnvScope, row: unknown, index: number, now: number): Promise<AliasRowResult> {
  try {
    if (typeof row !== 'object' || row === null || Array.isArray(row)) throw invalidParam(`Invalid value for \`links[${index}]\`: must be an object.`);
    const input = parseIdentifyInput(row as Record<string, unknown>, `links[${index}].`);
    if (input.idToken) throw invalidParam(`Invalid value for \`links[${index}].idToken\`: bulk rows are server-asserted and take no token.`);
    const result = await linkIdentify(scope, input, { assurance: 'self_asserted', email: input.email, now, velocity: false, deviceVerified: false, surface: 'bulk_alias' });
    return { index, serviceCustomerId: result.customerId!, mergePending: result.mergePending };
  } catch (err) {
    const error = err instanceof ApiError ? err : asApiError(err);
    return { index, error: { code: error.code, message: error.message } };
  }
}

export async function aliasBatch(scope: EnvScope, links: unknown[], now: number): Promise<AliasRowResult[]> {
  const results: AliasRowResult[] = new Array(links.length);
  let next = 0;
  const worker = async () => {
    while (next < links.length) {
      const index = next++;
      results[index] = await aliasRow(scope, links[index], index, now);
    }
  };
  await Promise.all(Array.from({ length: Math.min(ROW_CONCURRENCY, links.length) }, worker));
  return results;
}

export const bulkAliasRoute = route<Record<string, unknown>>({
  method: 'POST',
  path: '/v1/server/customers/alias',
  key: 'secret',
  rateLimit: 'alias',
  body: bulkAliasBodySchema,
  maxBodyBytes: 4 * 1024 * 1024,
  cacheControl: 'no-store',
  async handler(ctx) {
    const links = parseLinks(ctx.body);
    const results = await aliasBatch(ctx.scope, links, ctx.deps.clock.now());
    const ok = results.filter((r): r is Extract<AliasRowResult, { serviceCustomerId: string }> => 'serviceCustomerId' in r);
    const body: AliasBatchResponse = {
      object: 'alias_batch',
      env: ctx.auth.wireEnv,
      total: links.length,
      linked: ok.length,
      mergePending: ok.filter((r) => r.mergePending).length,
      errors: results.length - ok.length,
      results,
    };
    return { body };
  },
});
