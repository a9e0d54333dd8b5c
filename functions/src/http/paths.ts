import type { HttpMethod } from './methods';
import type { CompiledRoute } from './route';
import { decodeUrlComponent } from './urlParts';

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

/**
 * A route table: exact segment matching, `:name` segments captured. A route is chosen on the
 * raw segments; its parameters are then decoded strictly, so a malformed or non-UTF-8
 * percent-encoding is `400 invalid_param_value` naming the parameter.
 */
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
    const entry = this.entries.find(
      (candidate) =>
        candidate.method === method &&
        candidate.segments.length === segments.length &&
        candidate.segments.every((pattern, i) => pattern.startsWith(':') || pattern === segments[i]),
    );
    if (!entry) return null;
    const params: Record<string, string> = {};
    entry.segments.forEach((pattern, i) => {
      if (pattern.startsWith(':')) params[pattern.slice(1)] = decodeUrlComponent(segments[i], `path parameter \`${pattern.slice(1)}\``);
    });
    return { route: entry.route, params };
  }
}
