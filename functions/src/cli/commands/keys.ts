import { createKeys, DEFAULT_ROTATION_GRACE_MS, listKeys, revokeKey, rotateKey } from '../../keys/lifecycle';
import { ENVS } from '../../store/env';
import { optionalString, requireOneOf, requireString, stringList, type Command } from '../command';
import { parseDuration } from '../duration';

export const keyCommands: Command[] = [
  {
    name: 'keys create',
    summary: '--app ID --env test|live [--scope SCOPE]… [--acknowledge-row-level-data]',
    options: { app: { type: 'string' }, env: { type: 'string' }, scope: { type: 'string', multiple: true }, 'acknowledge-row-level-data': { type: 'boolean' } },
    async run(values, { db, clock }) {
      return createKeys(
        db,
        {
          appId: requireString(values, 'app'),
          env: requireOneOf(values, 'env', ENVS),
          scopes: stringList(values, 'scope'),
          acknowledgeRowLevelData: values['acknowledge-row-level-data'] === true,
        },
        clock.now(),
      );
    },
  },
  {
    name: 'keys rotate',
    summary: '--key KEY_OR_ID [--grace 7d|24h|1h|0]',
    options: { key: { type: 'string' }, grace: { type: 'string' } },
    async run(values, { db, clock }) {
      const grace = optionalString(values, 'grace');
      const result = await rotateKey(db, requireString(values, 'key'), grace ? parseDuration(grace) : DEFAULT_ROTATION_GRACE_MS, clock.now());
      return {
        newKey: result.newKey,
        oldKey: { id: result.oldKeyId, expiresAt: result.oldKeyExpiresAt, expiresAtIso: new Date(result.oldKeyExpiresAt).toISOString() },
      };
    },
  },
  {
    name: 'keys revoke',
    summary: '--key KEY_OR_ID   (immediate and irreversible)',
    options: { key: { type: 'string' } },
    async run(values, { db, clock }) {
      return revokeKey(db, requireString(values, 'key'), clock.now());
    },
  },
  {
    name: 'keys list',
    summary: '--app ID',
    options: { app: { type: 'string' } },
    async run(values, { db, clock }) {
      return listKeys(db, requireString(values, 'app'), clock.now());
    },
  },
];
