import type { CompiledRoute, HttpMethod } from './route';

/** `/events`, `/v1/events/`, `//v1//events` → `/v1/events`. Every path is served with or without `/v1`. */
export function canonicalPath(rawPath: string): string {
  let path = `/${rawPath.split('/').filter(Boolean).join('/')}`;
  if (path !== '/v1' && !path.startsWith('/v1/')) path = path === '/' ? '/v1' : `/v1${path}`;
  return path;
}

export interface RouteMatch {
  route: CompiledRoute;
  params: Record<string, string>;
}

/** A route table: exact segment matching, `:name` segments captured (URL-decoded). */
export class RouteTable {
  private readonly entries: { method: HttpMethod; segments: string[]; route: CompiledRoute }[] = [];

  constructor(routes: readonly CompiledRoute[]) {
    for (const route of routes) {
      for (const path of [route.path, ...(route.aliases ?? [])]) {
        this.entries.push({ method: route.method, segments: path.split('/').filter(Boolean), route });
      }
    }
  }

  match(method: string, path: string): RouteMatch | null {
    const segments = path.split('/').filter(Boolean);
    for (const entry of this.entries) {
      if (entry.method !== method || entry.segments.length !== segments.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < segments.length && ok; i += 1) {
        const pattern = entry.segments[i];
        if (pattern.startsWith(':')) {
          try {
            params[pattern.slice(1)] = decodeURIComponent(segments[i]);
          } catch {
            ok = false;
          }
        } else ok = pattern === segments[i];
      }
      if (ok) return { route: entry.route, params };
    }
    return null;
  }
}
