import { appleRailBodySchema, googleRailBodySchema, railsResponseSchema, setRailResponseSchema, stripeRailBodySchema, type AppleRailBody, type GoogleRailBody, type StripeRailBody } from '../../wire/dashboard';
import { dashboardRoute, IN_PROJECT, NO_STORE, reply } from './paths';

/** Rails: references and certificate fingerprints only, never a secret value; set them (rails/operatorSettings.ts checks). */

export const railsRoute = dashboardRoute({
  method: 'GET',
  path: `${IN_PROJECT}/rails`,
  key: 'operator',
  response: railsResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.rails()),
});

export const setStripeRailRoute = dashboardRoute<StripeRailBody>({
  method: 'POST',
  path: `${IN_PROJECT}/rails/stripe`,
  key: 'operator',
  body: stripeRailBodySchema,
  response: setRailResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.setStripeRail(ctx.body)),
});

export const setAppleRailRoute = dashboardRoute<AppleRailBody>({
  method: 'POST',
  path: `${IN_PROJECT}/rails/apple`,
  key: 'operator',
  body: appleRailBodySchema,
  response: setRailResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => reply(await ctx.operator.console.setAppleRail({ bundleId: ctx.body.bundleId, appAppleId: ctx.body.appAppleId ?? null, rootCertificates: ctx.body.rootCertificates ?? [] })),
});

export const setGoogleRailRoute = dashboardRoute<GoogleRailBody>({
  method: 'POST',
  path: `${IN_PROJECT}/rails/google`,
  key: 'operator',
  body: googleRailBodySchema,
  response: setRailResponseSchema,
  cacheControl: NO_STORE,
  handler: async (ctx) => {
    const { packageName, serviceAccountRef, pushAudience, pushServiceAccountEmail } = ctx.body;
    // Absent and null both keep the configured value.
    return reply(await ctx.operator.console.setGoogleRail({ packageName, serviceAccountRef, pushAudience: pushAudience ?? undefined, pushServiceAccountEmail: pushServiceAccountEmail ?? undefined }));
  },
});
