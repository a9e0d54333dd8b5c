import type { FromSchema } from 'json-schema-to-ts';
import { unixTimeSchema, wireEnvSchema } from './common';

/** `GET /v1/healthz`. */
export const healthzResponseSchema = {
  type: 'object',
  required: ['status', 'service', 'timestamp', 'region'],
  additionalProperties: false,
  properties: { status: { const: 'ok' }, service: { type: 'string' }, timestamp: unixTimeSchema, region: { type: 'string' } },
} as const;
export type HealthzResponse = FromSchema<typeof healthzResponseSchema>;

const surfaceVersionsSchema = {
  type: 'object',
  required: ['name', 'latest', 'minSupported'],
  additionalProperties: false,
  properties: { name: { type: 'string' }, latest: { type: 'string' }, minSupported: { type: 'string' } },
} as const;

/** `GET /v1/sdk/versions`: one entry per surface. */
export const versionsResponseSchema = {
  type: 'object',
  required: ['object', 'surfaces', 'generatedAt'],
  additionalProperties: false,
  properties: {
    object: { const: 'sdk_versions' },
    surfaces: {
      type: 'object',
      required: ['web', 'node', 'swift', 'react-native'],
      additionalProperties: false,
      properties: { web: surfaceVersionsSchema, node: surfaceVersionsSchema, swift: surfaceVersionsSchema, 'react-native': surfaceVersionsSchema },
    },
    generatedAt: unixTimeSchema,
  },
} as const;
export type VersionsResponse = FromSchema<typeof versionsResponseSchema>;

const platformSchema = { type: 'string', enum: ['ios', 'android', 'web'] } as const;
const sdkDefaultOrBoolean = { type: ['boolean', 'null'] } as const;

/** `GET /v1/config` (publishable keys). `errorNoiseDenyList`'s contents are not shown by the spec. */
export const configResponseSchema = {
  type: 'object',
  required: ['object', 'env', 'projectId', 'appId', 'platform', 'allowedOrigins', 'sdk', 'verifierConfig', 'errorNoiseDenyList', 'serverTime'],
  additionalProperties: false,
  properties: {
    object: { const: 'config' },
    env: wireEnvSchema,
    projectId: { type: 'string' },
    appId: { type: 'string' },
    platform: platformSchema,
    allowedOrigins: { type: 'array', items: { type: 'string' } },
    sdk: {
      type: 'object',
      required: ['minVersion', 'deprecatedVersions'],
      additionalProperties: false,
      properties: { minVersion: { type: 'string' }, deprecatedVersions: { type: 'array', items: { type: 'string' } } },
    },
    verifierConfig: {
      type: 'object',
      required: ['logVerifierResults', 'verifyContractsAtBoot'],
      additionalProperties: false,
      properties: { logVerifierResults: sdkDefaultOrBoolean, verifyContractsAtBoot: sdkDefaultOrBoolean },
    },
    errorNoiseDenyList: { type: 'object' },
    serverTime: unixTimeSchema,
  },
} as const;
export type ConfigResponse = FromSchema<typeof configResponseSchema>;

/** `GET /v1/sdk/heartbeat`. */
export const heartbeatResponseSchema = {
  type: 'object',
  required: ['object', 'ok', 'projectId', 'appId', 'platform', 'env', 'serverTime'],
  additionalProperties: false,
  properties: {
    object: { const: 'heartbeat' },
    ok: { type: 'boolean' },
    projectId: { type: 'string' },
    appId: { type: 'string' },
    platform: platformSchema,
    env: wireEnvSchema,
    serverTime: unixTimeSchema,
  },
} as const;
export type HeartbeatResponse = FromSchema<typeof heartbeatResponseSchema>;
