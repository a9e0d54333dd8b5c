import type { Express } from 'express';
import { createApiApp } from '../http/pipeline';
import type { CompiledRoute } from '../http/route';
import type { Deps, RootDeps } from './deps';

/**
 * The Express app of a set of routes, as the deployed functions, the local runner and the tests
 * serve it. Handlers get `handlerDeps(root)` as `ctx.deps`: the Deps fields and nothing else,
 * so the process's unscoped Firestore handle is not reachable from a handler even by a cast.
 */
export function createServiceApp(routes: readonly CompiledRoute<Deps>[], root: RootDeps): Express {
  return createApiApp(routes, handlerDeps(root));
}

/** One view per RootDeps, so per-process memories keyed by it stay one per process. */
const views = new WeakMap<RootDeps, Deps>();
function handlerDeps(root: RootDeps): Deps {
  let view = views.get(root);
  if (!view) {
    const { clock, settings, keys, limiter, tasks, liveness, secrets, rails, idTokens, webhookDelivery, operators } = root;
    view = Object.freeze({ clock, settings, keys, limiter, tasks, liveness, secrets, rails, idTokens, webhookDelivery, operators } satisfies Deps);
    views.set(root, view);
  }
  return view;
}
