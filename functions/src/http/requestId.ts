import { randomToken } from '../ids/random';

export const newRequestId = (): string => `req_${randomToken(24)}`;
