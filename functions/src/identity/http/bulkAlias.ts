import { asApiError, invalidParam } from '../../http/errors';
import { route } from '../../http/route';
import { compileSchema } from '../../http/validation';
import type { EnvScope } from '../../store/scope';
import { bulkAliasBodySchema, bulkAliasResponseSchema, identifyBodySchema, type AliasRowResult, type BulkAliasBody, type BulkAliasResponse, type IdentifyBody } from '../../wire/identity';
import { identifyInput, linkIdentify } from '../identifyService';
import { identityPolicy } from '../identityPolicy';
import { VerifiedIdentityRequired } from '../link';
import { identityMemory } from '../ports';

/**
 * `POST /v1/server/customers/alias` (secret key only): up to 1,000 identify rows in one call.
 * Each row is validated and linked like an identify call (self-asserted: rows carry no token,
 * and the per-user velocity cap, a guard against abusive clients, does not apply to the
 * server). A bad row is reported in `results` and never blocks its siblings. Under the
 * project's require-verified policy a row cannot link a new device to a verified user (rows
 * carry no token): that row is `identity_token_invalid`, nothing of it written.
 */
const ROW_CONCURRENCY = 8;

/** Each row is an identify body; messages name `links[i].field`. */
const validateRow = compileSchema<IdentifyBody>(identifyBodySchema);

const VERIFIED_IDENTITY_REQUIRED = 'This user has a verified identity and the project requires a valid idToken to link a new device to it; bulk rows carry none.';

async function aliasRow(scope: EnvScope, row: unknown, index: number, now: number, requireVerified: () => Promise<boolean>): Promise<AliasRowResult> {
  try {
    const input = identifyInput(validateRow(row, `/links/${index}`));
    if (input.idToken) throw invalidParam(`Invalid value for \`links[${index}].idToken\`: bulk rows are server-asserted and take no token.`);
    const result = await linkIdentify(scope, input, { assurance: 'self_asserted', email: input.email, now, velocity: false, deviceVerified: false, surface: 'bulk_alias', refuseNewDeviceForVerifiedUser: await requireVerified() });
    return { index, serviceCustomerId: result.customerId!, mergePending: result.mergePending };
  } catch (err) {
    if (err instanceof VerifiedIdentityRequired) return { index, error: { code: 'identity_token_invalid', message: VERIFIED_IDENTITY_REQUIRED } };
    const error = asApiError(err);
    return { index, error: { code: error.code, message: error.message } };
  }
}

/** `requireVerified` reads the project's policy once, when the first valid row needs it. */
export async function aliasBatch(scope: EnvScope, links: unknown[], now: number, requireVerified: () => Promise<boolean>): Promise<AliasRowResult[]> {
  const results: AliasRowResult[] = new Array(links.length);
  let next = 0;
  const worker = async () => {
    while (next < links.length) {
      const index = next++;
      results[index] = await aliasRow(scope, links[index], index, now, requireVerified);
    }
  };
  await Promise.all(Array.from({ length: Math.min(ROW_CONCURRENCY, links.length) }, worker));
  return results;
}

export const bulkAliasRoute = route<BulkAliasBody, Record<string, string>, Record<string, string>, BulkAliasResponse>({
  method: 'POST',
  path: '/v1/server/customers/alias',
  key: 'secret',
  rateLimit: 'alias',
  body: bulkAliasBodySchema,
  response: bulkAliasResponseSchema,
  maxBodyBytes: 4 * 1024 * 1024,
  cacheControl: 'no-store',
  async handler(ctx) {
    const { links } = ctx.body;
    const now = ctx.deps.clock.now();
    let policy: Promise<boolean> | null = null;
    const requireVerified = () => (policy ??= identityPolicy(ctx.scope, identityMemory(ctx.deps).policy, now).then((p) => p.requireVerifiedIdentity));
    const results = await aliasBatch(ctx.scope, links, now, requireVerified);
    const ok = results.filter((r): r is Extract<AliasRowResult, { serviceCustomerId: string }> => 'serviceCustomerId' in r);
    const body: BulkAliasResponse = {
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
