import { writeRailConfig } from '../../rails/config';
import { isSecretRef } from '../../secrets/store';
import { requireString, type Command, type Values } from '../command';
import { OperatorError } from '../operatorError';
import { operatorScope } from './catalog';

/** Values that are Stripe credentials themselves, not references to them. */
const STRIPE_SECRET_SHAPE = /^(sk|rk)_(test|live)_|^whsec_/;

function requireRef(values: Values, name: string): string {
  const ref = requireString(values, name);
  // Never echo the value: it may be the secret itself.
  if (STRIPE_SECRET_SHAPE.test(ref)) {
    throw new OperatorError('invalid_argument', `--${name} looks like a Stripe secret, not a reference: store the secret in Secret Manager (or .secrets.local.json locally) and pass its name.`);
  }
  if (!isSecretRef(ref)) {
    throw new OperatorError('invalid_argument', `--${name} must be a secret name (letters, digits, _ and -) or projects/P/secrets/S[/versions/V].`);
  }
  return ref;
}

export const stripeRailCommands: Command[] = [
  {
    name: 'rails set stripe',
    summary: '--project ID --env test|live --secret-key-ref REF --webhook-secret-ref REF   (references only; the secrets stay in the secret manager)',
    options: { project: { type: 'string' }, env: { type: 'string' }, 'secret-key-ref': { type: 'string' }, 'webhook-secret-ref': { type: 'string' } },
    async run(values, { db, clock }) {
      const secretKeyRef = requireRef(values, 'secret-key-ref');
      const webhookSecretRef = requireRef(values, 'webhook-secret-ref');
      const scope = await operatorScope(db, values);
      const config = await writeRailConfig(scope, 'stripe', { secretKeyRef, webhookSecretRef }, clock.now());
      return { projectId: scope.projectId, env: scope.env, stripe: config.stripe };
    },
  },
];
