import type { JSONSchemaType } from 'ajv';
import { invalidParam } from '../../http/errors';
import { route } from '../../http/route';
import { UUID_PATTERN } from '../../identity/identifiers';
import { withIdempotency } from './idempotency';
import { syncApplePurchase, type AppleSyncInput } from '../syncService';
import type { TaskQueue } from '../../tasks/queue';
import type { RailEdges } from '../../rails/edges';

/**
 * `POST /v1/purchases/sync` (legacy `/v1/purchases`): App Store transactions only; Stripe and
 * Google Play purchases arrive through their webhooks. Honors `Idempotency-Key`.
 */
export interface SyncBody extends AppleSyncInput {
  rail: 'apple';
  /** Accepted for older SDKs, not used: the verified transaction says its environment. */
  environment?: string;
}

/**
 * Where each other rail's purchases arrive. Checked before the schema: a caller that names
 * another rail (the public React Native SDK sends `google`) learns where to go, not that
 * `signedTransactionInfo` is missing.
 */
const ELSEWHERE: Record<string, string> = {
  google: 'Google Play purchases arrive through the Play webhook (Real-time developer notifications to /v1/webhooks/google/{projectId}), not through purchase sync',
  stripe: 'Stripe purchases arrive through the Stripe webhook (/v1/webhooks/stripe/{projectId}), not through purchase sync',
};

export function checkSyncRail(body: unknown): void {
  const rail = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>).rail : undefined;
  if (typeof rail === 'string' && Object.hasOwn(ELSEWHERE, rail)) {
    throw invalidParam(`Invalid value for \`rail\`: ${ELSEWHERE[rail]}; only \`apple\` is synced here.`);
  }
}

const JWS = '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$';
const jws = { type: 'string', minLength: 1, maxLength: 32768, pattern: JWS } as const;

export const syncBodySchema: JSONSchemaType<SyncBody> = {
  type: 'object',
  required: ['rail', 'signedTransactionInfo'],
  properties: {
    rail: {
      type: 'string',
      const: 'apple',
      'x-invalid': 'only `apple` is synced here; Stripe and Google Play purchases arrive through their webhooks, /v1/webhooks/stripe/{projectId} and /v1/webhooks/google/{projectId}',
    },
    signedTransactionInfo: jws,
    signedRenewalInfo: { ...jws, nullable: true },
    appAccountToken: { type: 'string', pattern: UUID_PATTERN.source, nullable: true },
    environment: { type: 'string', nullable: true },
  },
};


export const purchaseSyncRoute = route<SyncBody, Record<string, string>, { tasks: TaskQueue; rails: RailEdges }>({
  method: 'POST',
  path: '/v1/purchases/sync',
  aliases: ['/v1/purchases'],
  key: 'any',
  rateLimit: 'purchases',
  body: syncBodySchema,
  cacheControl: 'no-store',
  maxBodyBytes: 128 * 1024,
  beforeValidation: ({ body }) => checkSyncRail(body),
  handler: async (ctx) => {
    const body = ctx.body;
    return withIdempotency(ctx, 'purchases.sync', async () => ({
      body: await syncApplePurchase({ scope: ctx.scope, clock: ctx.deps.clock, tasks: ctx.deps.tasks, appleOnlineChecks: ctx.deps.rails.apple.onlineChecks }, { requestId: ctx.requestId, wireEnv: ctx.auth.wireEnv }, {
        signedTransactionInfo: body.signedTransactionInfo,
        signedRenewalInfo: body.signedRenewalInfo ?? undefined,
        appAccountToken: body.appAccountToken ?? undefined,
      }),
    }));
  },
});
