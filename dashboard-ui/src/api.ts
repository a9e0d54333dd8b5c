/**
 * The dashboard API client. Authority is a Bearer token held in sessionStorage (a Firebase ID
 * token deployed, a local session token under `npm start`) and sent explicitly on each call:
 * no cookie carries it, so another site cannot make the browser act for the operator.
 */
const TOKEN_KEY = 'tessera.dashboard.token';
export const API = '/v1/dashboard-api';

export type Env = 'test' | 'live';

export const SIGNED_OUT_EVENT = 'tessera:signed-out';

export class ApiFailure extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly requestId: string | null,
  ) {
    super(message);
  }
}

export const session = {
  get: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  set: (token: string): void => sessionStorage.setItem(TOKEN_KEY, token),
  clear: (): void => sessionStorage.removeItem(TOKEN_KEY),
};

let tokenRefresher: (() => Promise<string | null>) | null = null;
/** Deployed sign-in refreshes its short-lived ID token before it expires. */
export function setTokenRefresher(refresh: (() => Promise<string | null>) | null): void {
  tokenRefresher = refresh;
}

export async function call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const token = (tokenRefresher ? await tokenRefresher() : null) ?? session.get();
  const headers: Record<string, string> = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(`${API}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'omit', cache: 'no-store' });
  } catch {
    throw new ApiFailure('The dashboard API could not be reached. Check your connection and retry.', 0, 'network', null);
  }
  const text = await res.text();
  let parsed: any = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // a non-JSON answer (a proxy's error page) is reported below
  }
  if (!res.ok) {
    const error = parsed?.error;
    // The sign-in ended (expired token, a new local run): back to the sign-in page, saying why.
    if (res.status === 401 && token) dispatchEvent(new CustomEvent(SIGNED_OUT_EVENT, { detail: error?.message ?? 'Your sign-in ended.' }));
    throw new ApiFailure(error?.message ?? `The API answered ${res.status}.`, res.status, error?.code ?? 'unknown', error?.request_id ?? res.headers.get('x-request-id'));
  }
  return parsed?.data as T;
}

/** `/projects/{id}/{env}` + path: every project read and write names its environment explicitly. */
export const inProject = (projectId: string, env: Env, path: string): string => `/projects/${encodeURIComponent(projectId)}/${env}${path}`;
