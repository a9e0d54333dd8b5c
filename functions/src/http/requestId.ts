import { randomToken } from '../keys/format';

export const newRequestId = (): string => `req_${randomToken(24)}`;
