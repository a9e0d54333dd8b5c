import type { EnvScope } from '../store/scope';
import type { HttpMethod } from './methods';

/** The roles an operator route can require: a viewer reads; an admin also changes things. */
export const OPERATOR_ROLES = ['viewer', 'admin'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

/** What the pipeline asks the operator gate about an `operator` route's request. */
export interface OperatorRequest {
  requestId: string;
  method: HttpMethod;
  authorization: string | undefined;
  /** From the route's path; absent on routes outside a project (the session). */
  projectId?: string;
  env?: string;
  /** The least role the route needs. */
  needs: OperatorRole;
}

/**
 * The port through which `operator` routes (the dashboard) are authorised in the API key's
 * place. The pipeline knows nothing of operators beyond this: dashboard/authenticator.ts
 * implements it, and its `Operator` (who, and the console of the path's project) reaches the
 * route as `ctx.operator`. It throws the closed set's errors (401, 403) on refusal.
 */
export interface OperatorGate<Operator = unknown> {
  authorise(request: OperatorRequest): Promise<{ operator: Operator; scope: EnvScope | null }>;
}
