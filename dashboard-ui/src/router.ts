import { useEffect, useState } from 'preact/hooks';
import type { Env } from './api';

/** `#/{projectId}/{env}/{page}/{arg…}`: the address names the project, the environment and the page. */
export const PAGES = ['overview', 'customers', 'conflicts', 'apps', 'rails', 'errors', 'webhooks', 'audit'] as const;
export type Page = (typeof PAGES)[number];

export interface Route {
  projectId: string | null;
  env: Env;
  page: Page;
  args: string[];
}

export function parseHash(hash: string): Route {
  const [projectId, env, page, ...args] = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  return {
    projectId: projectId || null,
    env: env === 'live' ? 'live' : 'test',
    page: (PAGES as readonly string[]).includes(page ?? '') ? (page as Page) : 'overview',
    args: args.filter(Boolean),
  };
}

export const href = (route: Pick<Route, 'projectId' | 'env' | 'page'> & { args?: string[] }): string =>
  `#/${[route.projectId ?? '', route.env, route.page, ...(route.args ?? [])].map(encodeURIComponent).join('/')}`;

export function navigate(route: Pick<Route, 'projectId' | 'env' | 'page'> & { args?: string[] }): void {
  location.hash = href(route);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseHash(location.hash));
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
