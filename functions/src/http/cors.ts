import type { Request, Response } from 'express';

/** Authentication › CORS: the preflight is permissive; the actual request enforces the allowlist. */
export const CORS_PREFLIGHT_HEADERS = {
  'Access-Control-Allow-Methods': 'GET, POST, DELETE, OPTIONS',
  'Access-Control-Allow-Headers': 'Authorization, Service-Api-Key, Service-Sdk-Version, Idempotency-Key, Content-Type',
  'Access-Control-Max-Age': '600',
} as const;

const EXPOSED_HEADERS = 'X-Request-Id, Retry-After, X-Service-Sample-Rate, Idempotent-Replayed, X-Service-Audit-Event-Id';

export function answerPreflight(req: Request, res: Response): void {
  const origin = req.get('origin');
  if (origin) res.set('Access-Control-Allow-Origin', origin);
  res.set(CORS_PREFLIGHT_HEADERS).set('Vary', 'Origin').status(204).end();
}

/** On actual responses, let a browser read the body and the headers SDKs rely on. */
export function setResponseCors(req: Request, res: Response): void {
  const origin = req.get('origin');
  if (!origin) return;
  res.set({ 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSED_HEADERS, Vary: 'Origin' });
}
