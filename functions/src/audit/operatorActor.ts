/**
 * Who made an operator change, kept on its audit entry (`details.surface`, `details.operator`):
 * the CLI (no identity beyond the machine's credentials) or a signed-in dashboard operator.
 */
export interface OperatorActor {
  surface: 'cli' | 'dashboard';
  /** The operator's email (dashboard); null for the CLI. */
  operator: string | null;
  /** The dashboard request that made the change. */
  requestId: string | null;
}

export const CLI_ACTOR: OperatorActor = { surface: 'cli', operator: null, requestId: null };

/** The audit `details` fields that name the actor. */
export function actorDetails(actor: OperatorActor): Record<string, unknown> {
  return { surface: actor.surface, ...(actor.operator ? { operator: actor.operator } : {}), ...(actor.requestId ? { requestId: actor.requestId } : {}) };
}
