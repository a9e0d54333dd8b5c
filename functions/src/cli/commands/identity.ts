import { readFileSync } from 'node:fs';
import { conflictPartition, keepSeparate, listConflicts, mergeConflict } from '../../identity/conflicts';
import { inspectCustomer, type CustomerLookup } from '../../identity/inspect';
import { setIdentityPolicy, setIdentityProvider } from '../../identity/providerSetup';
import { setTransferBehavior, TRANSFER_BEHAVIORS } from '../../identity/transferPolicy';
import { ENVS } from '../../store/env';
import { EnvScope } from '../../store/scope';
import { optionalString, requireOneOf, requireString, type Command } from '../command';
import { OperatorError } from '../operatorError';
import { CUSTOMER_ID } from '../../ids';

/** Operator commands of the identity capability. */
export const identityCommands: Command[] = [
  {
    name: 'identity-provider set',
    summary: '--project ID --issuer ISS --audience AUD (--jwks-uri URL | --jwks-file FILE)',
    options: { project: { type: 'string' }, issuer: { type: 'string' }, audience: { type: 'string' }, 'jwks-uri': { type: 'string' }, 'jwks-file': { type: 'string' } },
    async run(values, { db, clock }) {
      const file = optionalString(values, 'jwks-file');
      let jwksText: string | undefined;
      if (file !== undefined) {
        try {
          jwksText = readFileSync(file, 'utf8');
        } catch (err) {
          throw new OperatorError('invalid_argument', `Cannot read --jwks-file ${file}: ${(err as Error).message}`);
        }
      }
      const projectId = requireString(values, 'project');
      const config = await setIdentityProvider(
        db,
        projectId,
        { issuer: requireString(values, 'issuer'), audience: requireString(values, 'audience'), jwksUri: optionalString(values, 'jwks-uri'), jwksText },
        clock.now(),
      );
      const keyCount = config.jwks ? (JSON.parse(config.jwks) as { keys: unknown[] }).keys.length : null;
      return { projectId, issuer: config.issuer, audience: config.audience, jwksUri: config.jwksUri, jwksKeys: keyCount, requireVerifiedIdentity: config.requireVerifiedIdentity === true, updatedAt: config.updatedAt };
    },
  },
  {
    name: 'identity-provider policy',
    summary: '--project ID --require-verified-identity on|off   (off by default; see identity/README.md)',
    options: { project: { type: 'string' }, 'require-verified-identity': { type: 'string' } },
    async run(values, { db, clock }) {
      const projectId = requireString(values, 'project');
      const state = requireOneOf(values, 'require-verified-identity', ['on', 'off'] as const);
      const policy = await setIdentityPolicy(db, projectId, state === 'on', clock.now());
      return { projectId, ...policy };
    },
  },
  {
    name: 'subscription-transfer set',
    summary: '--project ID --behavior keep|transfer   (keep by default: who owns a subscription presented for another customer; see identity/README.md)',
    options: { project: { type: 'string' }, behavior: { type: 'string' } },
    async run(values, { db, clock }) {
      const projectId = requireString(values, 'project');
      const setting = await setTransferBehavior(db, projectId, requireOneOf(values, 'behavior', TRANSFER_BEHAVIORS), clock.now());
      return { projectId, ...setting };
    },
  },
  {
    name: 'conflicts list',
    summary: '--project ID --env test|live   (open identity merge conflicts)',
    options: { project: { type: 'string' }, env: { type: 'string' } },
    async run(values, { db }) {
      const conflicts = await listConflicts(new EnvScope(db, requireString(values, 'project'), requireOneOf(values, 'env', ENVS)));
      return { conflicts };
    },
  },
  {
    name: 'conflicts resolve',
    summary: '--conflict ID (--merge | --keep-separate)',
    options: { conflict: { type: 'string' }, merge: { type: 'boolean' }, 'keep-separate': { type: 'boolean' } },
    async run(values, { db, clock }) {
      const id = requireString(values, 'conflict');
      const merge = values.merge === true;
      const keep = values['keep-separate'] === true;
      if (merge === keep) throw new OperatorError('invalid_argument', 'Give exactly one of --merge or --keep-separate.');
      const { projectId, env } = conflictPartition(id);
      const scope = new EnvScope(db, projectId, env);
      return merge ? mergeConflict(scope, id, clock.now()) : keepSeparate(scope, id, clock.now());
    },
  },
  {
    name: 'customers show',
    summary: '--project ID --env test|live (--customer ID | --user-id ID | --anonymous-id ID)',
    options: { project: { type: 'string' }, env: { type: 'string' }, customer: { type: 'string' }, 'user-id': { type: 'string' }, 'anonymous-id': { type: 'string' } },
    async run(values, { db, clock }) {
      const given: CustomerLookup[] = [];
      const customerId = optionalString(values, 'customer');
      const userId = optionalString(values, 'user-id');
      const anonymousId = optionalString(values, 'anonymous-id');
      if (customerId !== undefined) {
        if (!CUSTOMER_ID.is(customerId)) throw new OperatorError('invalid_argument', '--customer must be a customer id starting with cdcust_.');
        given.push({ customerId });
      }
      if (userId !== undefined) given.push({ kind: 'developer', id: userId });
      if (anonymousId !== undefined) given.push({ kind: 'anonymous', id: anonymousId });
      if (given.length !== 1) throw new OperatorError('invalid_argument', 'Give exactly one of --customer, --user-id or --anonymous-id.');
      return inspectCustomer(new EnvScope(db, requireString(values, 'project'), requireOneOf(values, 'env', ENVS)), given[0], clock.now());
    },
  },
];
