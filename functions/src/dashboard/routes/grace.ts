import type { JSONSchemaType } from 'ajv';
import { HOUR } from '../../clock';

/**
 * The grace chooser's choices, shared by both rotations (an API key's and a webhook endpoint's
 * signing secret: both services accept 0 to 7 days; the page marks each rotation's default).
 */
export const GRACES = { '0': 0, '1h': HOUR, '24h': 24 * HOUR, '7d': 7 * 24 * HOUR } as const;
export type Grace = keyof typeof GRACES;

export interface GraceBody {
  grace: Grace;
}

export const graceBodySchema: JSONSchemaType<GraceBody> = {
  type: 'object',
  required: ['grace'],
  properties: { grace: { type: 'string', enum: Object.keys(GRACES) as Grace[] } },
};
