import type { Express, Request, Response } from 'express';

/**
 * The pipeline's app has one handler for every method and path (its own route table decides),
 * so Express's router (a layer walk, path matching, a `next` chain and a final handler built per
 * request) does nothing useful for it: ~0.04–0.1 ms of CPU per request (docs/benchmarks.md,
 * "Branch evcpu2"). This keeps what Express's own `app.handle` does before routing (the app's
 * request and response prototypes, so `req.get`, `req.path`, `res.set`… work as before;
 * `req.res`, `res.req`, `res.locals`) and calls the handler at once. The app is still called
 * as `app(req, res, next)` by Cloud Functions, `http.createServer` or a parent Express app.
 * The handler must answer every request itself (it never calls `next`).
 */
export function dispatchDirectly(app: Express, handler: (req: Request, res: Response) => void): void {
  const prepared = app as unknown as { handle(req: Request, res: Response): void; request: object; response: object };
  prepared.handle = (req, res) => {
    req.res = res;
    res.req = req;
    Object.setPrototypeOf(req, prepared.request);
    Object.setPrototypeOf(res, prepared.response);
    res.locals ??= Object.create(null);
    handler(req, res);
  };
}
