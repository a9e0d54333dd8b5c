import type { Reply } from '../../http/route';
import { toWireEnv, type Env } from '../../store/env';
import type { RailDecision } from '../decision';

/**
 * The answer to a rail once its decision is durably recorded (applied, no-op or duplicate): a
 * 2xx, so the rail stops retrying. Anything that did not record a decision (unverifiable,
 * misconfigured, provider or store unavailable) is answered with an error status instead, and
 * the rail's retry gets another chance.
 */
export function recorded(eventId: string, env: Env, outcome: RailDecision): Reply {
  return {
    status: 200,
    body: {
      object: 'rail_notification',
      eventId,
      env: toWireEnv(env),
      decision: outcome.decision,
      reason: outcome.reason,
      duplicate: outcome.duplicate,
    },
  };
}
