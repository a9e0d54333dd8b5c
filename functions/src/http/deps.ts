import type { Clock } from '../clock';
import type { Settings } from '../config/settings';
import type { KeyAuthenticator } from '../keys/authenticate';
import type { RateLimiter } from '../ratelimit/limiter';
import type { OperatorGate } from './operatorGate';

/**
 * What the pipeline itself needs from the process: the clock, the settings, key lookup, the
 * rate limiter and the operator gate. A route that needs more (the task queue, the rails'
 * edges, …) names those ports in its spec's `Ports` type; app/ hands every route the one
 * object that has them all, and the compiler checks that it does.
 */
export interface PipelineDeps {
  clock: Clock;
  settings: Settings;
  keys: KeyAuthenticator;
  limiter: RateLimiter;
  operators: OperatorGate;
}
