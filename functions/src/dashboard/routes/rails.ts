import type { JSONSchemaType } from 'ajv';
import type { GoogleRailInput } from '../../rails/operatorSettings';
import { dashboardRoute, IN_PROJECT, NO_STORE, reply } from './paths';

/** Rails: references and certificate fingerprints only, never a secret value; set them (rails/operatorSettings.ts checks). */

export const railsRoute = dashboardRoute({
  method: 'GET',
  path: `${IN_PROJECT}/rails`,
  key: 'operator',
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.rails()),
});

export interface StripeRailBody {
  secretKeyRef: string;
  webhookSecretRef: string;
}

const ref = { type: 'string', minLength: 1, maxLength: 300 } as const;

export const stripeRailSchema: JSONSchemaType<StripeRailBody> = {
  type: 'object',
  required: ['secretKeyRef', 'webhookSecretRef'],
  properties: { secretKeyRef: ref, webhookSecretRef: ref },
};

export const setStripeRailRoute = dashboardRoute<StripeRailBody>({
  method: 'POST',
  path: `${IN_PROJECT}/rails/stripe`,
  key: 'operator',
  body: stripeRailSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.setStripeRail(ctx.body)),
});

export interface AppleRailBody {
  bundleId: string;
  appAppleId?: number | null;
  rootCertificates?: string[];
}

export const appleRailSchema: JSONSchemaType<AppleRailBody> = {
  type: 'object',
  required: ['bundleId'],
  properties: {
    bundleId: { type: 'string', minLength: 1, maxLength: 155 },
    appAppleId: { type: 'integer', nullable: true, minimum: 1 },
    rootCertificates: { type: 'array', nullable: true, maxItems: 5, items: { type: 'string', minLength: 1, maxLength: 20_000 } },
  },
};

export const setAppleRailRoute = dashboardRoute<AppleRailBody>({
  method: 'POST',
  path: `${IN_PROJECT}/rails/apple`,
  key: 'operator',
  body: appleRailSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.setAppleRail({ bundleId: ctx.body.bundleId, appAppleId: ctx.body.appAppleId ?? null, rootCertificates: ctx.body.rootCertificates ?? [] })),
});

export const googleRailSchema: JSONSchemaType<GoogleRailInput> = {
  type: 'object',
  required: ['packageName', 'serviceAccountRef'],
  properties: {
    packageName: { type: 'string', minLength: 1, maxLength: 255 },
    serviceAccountRef: ref,
    pushAudience: { type: 'string', nullable: true, minLength: 1, maxLength: 500 },
    pushServiceAccountEmail: { type: 'string', nullable: true, minLength: 3, maxLength: 320 },
  },
};

export const setGoogleRailRoute = dashboardRoute<GoogleRailInput>({
  method: 'POST',
  path: `${IN_PROJECT}/rails/google`,
  key: 'operator',
  body: googleRailSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.setGoogleRail(ctx.body)),
});
