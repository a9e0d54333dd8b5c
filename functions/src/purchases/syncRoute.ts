import { invalidParam } from '../http/errors';
import { route } from '../http/route';
import { compileSchema } from '../http/validation';
import { UUID_PATTERN } from '../identity/identifiers';
import { withIdempotency } from './idempotency';
import { syncApplePurchase, type AppleSyncInput } from './syncService';

/**
 * `POST /v1/purchases/sync` (legacy `/v1/purchases`): App Store transactions only; Stripe and
 * Google Play purchases arrive through their webhooks. Honors `Idempotency-Key`.
 */
export interface SyncBody extends AppleSyncInput {
  rail: string;
}

const JWS = '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$';

export const syncBodySchema = {
  type: 'object',
  required: ['rail'],
  properties: { rail: { type: 'string', minLength: 1, maxLength: 32 } },
};

export const appleSyncSchema = {
  type: 'object',
  required: ['rail', 'signedTransactionInfo'],
  properties: {
    rail: { const: 'apple' },
    signedTransactionInfo: { type: 'string', minLength: 1, maxLength: 32768, pattern: JWS },
    signedRenewalInfo: { type: 'string', minLength: 1, maxLength: 32768, pattern: JWS },
    appAccountToken: { type: 'string', pattern: UUID_PATTERN.source },
    environment: { type: 'string' },
  },
};
const validateAppleSync = compileSchema<SyncBody>(appleSyncSchema);

const WEBHOOK_RAILS: Record<string, string> = {
  stripe: '/v1/webhooks/stripe/{projectId}',
  google: '/v1/webhooks/google/{projectId}',
};

export const purchaseSyncRoute = route<SyncBody>({
  method: 'POST',
  path: '/v1/purchases/sync',
  aliases: ['/v1/purchases'],
  key: 'any',
  rateLimit: 'purchases',
  body: syncBodySchema,
  cacheControl: 'no-store',
  maxBodyBytes: 128 * 1024,
  handler: async (ctx) => {
    const { rail } = ctx.body;
    if (WEBHOOK_RAILS[rail]) {
      throw invalidParam(`Rail \`${rail}\` is not synced here: its purchases arrive through the webhook ${WEBHOOK_RAILS[rail]}. Only \`apple\` is supported.`);
    }
    if (rail !== 'apple') throw invalidParam(`Invalid value for \`rail\`: only \`apple\` is supported.`);
    const body = validateAppleSync(ctx.body);
    return withIdempotency(ctx, 'purchases.sync', async () => ({
      body: await syncApplePurchase(ctx, {
        signedTransactionInfo: body.signedTransactionInfo,
        signedRenewalInfo: body.signedRenewalInfo,
        appAccountToken: body.appAccountToken,
      }),
    }));
  },
});
