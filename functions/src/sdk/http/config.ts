import { route } from '../../http/route';
import { DEFAULT_SURFACE, parseSdkVersion, SDK_VERSIONS } from '../surfaces';
import { configResponseSchema, type ConfigResponse } from '../../wire/sdk';
import { storedRecord } from '../../store/converters';

/** Optional per-project, per-environment overrides at `projects/{p}/envs/{env}/settings/sdk`. */
interface SdkSettings {
  deprecatedVersions?: string[];
  logVerifierResults?: boolean | null;
  verifyContractsAtBoot?: boolean | null;
  errorNoiseDenyList?: Record<string, unknown>;
}

const sdkSettingsConverter = storedRecord<SdkSettings>();

/** Drop-at-source patterns for well-known browser and runtime noise (versioned). */
export const DEFAULT_ERROR_NOISE_DENY_LIST = {
  version: 1,
  messagePatterns: ['^ResizeObserver loop (limit exceeded|completed with undelivered notifications)', '^Script error\\.?$', '^Non-Error promise rejection captured'],
  urlPatterns: ['^(chrome|moz|safari(-web)?)-extension://'],
};

/**
 * The config is public for 60 s (the spec's), so a shared cache (a CDN in front of Hosting) may
 * keep it: every request header that selects the key (and so the app, environment and allowed
 * origins), passes the platform lock, or changes the body (the SDK surface) is named here, so a
 * cache never answers one caller with another app's config.
 */
export const CONFIG_VARY = ['Authorization', 'Service-Api-Key', 'Origin', 'X-Service-Bundle-Id', 'X-Service-Package-Name', 'Service-Sdk-Version'].join(', ');

export const configRoute = route<unknown, Record<string, string>, Record<string, string>, ConfigResponse>({
  method: 'GET',
  path: '/v1/config',
  key: 'publishable',
  response: configResponseSchema,
  cacheControl: 'public, max-age=60',
  handler: async (ctx) => {
    const { auth, scope } = ctx;
    const snapshot = await scope.get(scope.doc('settings', 'sdk').withConverter(sdkSettingsConverter));
    const settings = snapshot.data() ?? {};
    const surface = parseSdkVersion(ctx.header('service-sdk-version'))?.surface ?? DEFAULT_SURFACE[auth.platform];
    return {
      headers: { Vary: CONFIG_VARY },
      body: {
        object: 'config',
        env: auth.wireEnv,
        projectId: auth.projectId,
        appId: auth.appId,
        platform: auth.platform,
        allowedOrigins: auth.record.allowedOrigins,
        sdk: { minVersion: SDK_VERSIONS[surface].minSupported, deprecatedVersions: settings.deprecatedVersions ?? [] },
        verifierConfig: {
          logVerifierResults: settings.logVerifierResults ?? null,
          verifyContractsAtBoot: settings.verifyContractsAtBoot ?? null,
        },
        errorNoiseDenyList: settings.errorNoiseDenyList ?? DEFAULT_ERROR_NOISE_DENY_LIST,
        serverTime: ctx.deps.clock.now(),
      },
    };
  },
});
