import { setStripeRail } from '../../rails/operatorSettings';
import { requireString, type Command } from '../command';
import { operatorScope } from './catalog';
import { CLI_RAIL_CHANGE } from './railFlags';

export const stripeRailCommands: Command[] = [
  {
    name: 'rails set stripe',
    summary: '--project ID --env test|live --secret-key-ref REF --webhook-secret-ref REF   (secret names in this project: REF is read from the secret tessera-<project id>-REF)',
    options: { project: { type: 'string' }, env: { type: 'string' }, 'secret-key-ref': { type: 'string' }, 'webhook-secret-ref': { type: 'string' } },
    async run(values, { db, clock }) {
      const secretKeyRef = requireString(values, 'secret-key-ref');
      const webhookSecretRef = requireString(values, 'webhook-secret-ref');
      const scope = await operatorScope(db, values);
      const { config } = await setStripeRail(scope, { secretKeyRef, webhookSecretRef }, clock.now(), CLI_RAIL_CHANGE);
      return { projectId: scope.projectId, env: scope.env, stripe: config.stripe };
    },
  },
];
