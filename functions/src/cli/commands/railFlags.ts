import { CLI_ACTOR } from '../../audit/operatorActor';
import type { RailChangeOrigin } from '../../rails/operatorSettings';

/** `tessera rails set …`: the CLI changes the settings, and a refusal names the flag the operator typed. */
export const CLI_RAIL_CHANGE: RailChangeOrigin = {
  actor: CLI_ACTOR,
  names: {
    secretKeyRef: '--secret-key-ref',
    webhookSecretRef: '--webhook-secret-ref',
    bundleId: '--bundle-id',
    appAppleId: '--app-apple-id',
    rootCertificates: '--root-cert',
    packageName: '--package-name',
    serviceAccountRef: '--service-account-ref',
    pushAudience: '--push-audience',
    pushServiceAccountEmail: '--push-service-account',
  },
};
