import { logs } from '../../http/logs';
import { normaliseOrigin } from '../../keys/origins';
import { route } from '../../http/route';
import { parseSdkVersion } from '../surfaces';
import type { LivenessRecorder } from '../liveness';

export const heartbeatRoute = route<unknown, Record<string, string>, { liveness: LivenessRecorder }>({
  method: 'GET',
  path: '/v1/sdk/heartbeat',
  key: 'any',
  rateLimit: 'heartbeat',
  allowEmptyWebAllowlist: true,
  cacheControl: 'no-store',
  handler: async (ctx) => {
    const { auth, scope, deps } = ctx;
    const now = deps.clock.now();
    // The key must be confirmed before the best-effort part: a revoked key still gets its 401.
    await scope.ensureKeyVerified();
    const sdk = parseSdkVersion(ctx.header('service-sdk-version'));
    try {
      await deps.liveness.record(scope, {
        appId: auth.appId,
        platform: auth.platform,
        surface: sdk?.surface ?? null,
        sdk: sdk ? `${sdk.name}@${sdk.version}` : null,
        at: now,
      });
      const origin = normaliseOrigin(ctx.header('origin'));
      if (auth.kind === 'publishable' && auth.platform === 'web' && auth.record.allowedOrigins.length === 0 && origin) {
        const learned = await deps.keys.learnFirstOrigin(auth.key, auth.appId, origin);
        if (learned) logs.originLearned(ctx.requestId, auth.appId, learned);
      }
    } catch (err) {
      logs.heartbeatWriteFailed(ctx.requestId, err instanceof Error ? err.message : String(err));
    }
    return {
      body: { object: 'heartbeat', ok: true, projectId: auth.projectId, appId: auth.appId, platform: auth.platform, env: auth.wireEnv, serverTime: now },
    };
  },
});
