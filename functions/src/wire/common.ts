/** Pieces several capabilities' schemas share (spec › Resources, Conventions). */

/** `env` in every response body, and `environment` in request bodies. */
export const wireEnvSchema = { type: 'string', enum: ['production', 'sandbox'] } as const;

/** Rail values (`source.rail`). */
export const railSchema = { type: 'string', enum: ['stripe', 'apple', 'google', 'manual'] } as const;

/** An integer Unix time (seconds or milliseconds, as the field's convention says). */
export const unixTimeSchema = { type: 'integer', minimum: 0 } as const;

/** The frozen `PublicEntitlement`: `validUntil` and `updatedAt` in Unix seconds, null `validUntil` is lifetime. */
export const publicEntitlementSchema = {
  type: 'object',
  required: ['object', 'key', 'isActive', 'validUntil', 'source', 'updatedAt'],
  additionalProperties: false,
  properties: {
    object: { const: 'entitlement' },
    key: { type: 'string' },
    isActive: { type: 'boolean' },
    validUntil: { type: ['integer', 'null'] },
    source: {
      type: 'object',
      required: ['rail', 'productId', 'subscriptionId'],
      additionalProperties: false,
      properties: { rail: railSchema, productId: { type: 'string' }, subscriptionId: { type: 'string' } },
    },
    updatedAt: unixTimeSchema,
  },
} as const;

/** A query parameter that may be given once (the pipeline hands a repeated one over as an array). */
export const onceQueryParam = { type: 'string', 'x-invalid': 'give it once' } as const;

/** A path parameter with no rule of its own (its service checks it). */
export const anyPathParam = { type: 'string' } as const;
