import { OPERATOR_ROLES, type OperatorRole } from '../http/operatorGate';
import type { Env } from '../store/env';
import { storedRecord } from '../store/converters';

/**
 * Operators of a project, at `projects/{projectId}/operators/{email}` (the email lower-cased):
 * who may use the dashboard for that project and with which role. A viewer reads; an admin also
 * changes things. Granted by `tessera operators add`, never by the dashboard itself.
 */
export const OPERATORS = 'operators';

// The roles are the pipeline's (an operator route names the least role it needs).
export { OPERATOR_ROLES, type OperatorRole };

export interface OperatorRecord {
  email: string;
  projectId: string;
  role: OperatorRole;
  addedAt: number;
  updatedAt: number;
}

/** Who is signed in: a Firebase Authentication user (deployed) or the local stack's operator. */
export interface OperatorIdentity {
  email: string;
  uid: string;
  via: 'firebase' | 'local';
  /** When this sign-in happened (Firebase's `auth_time`, ms): a sign-out ends every token of an earlier sign-in. */
  signedInAt?: number;
}

/** `operatorSignOuts/{uid}`: when a Firebase operator last signed out of the dashboard. */
export const OPERATOR_SIGN_OUTS = 'operatorSignOuts';

/** The authenticated operator of a request, with the project, environment and role it acts in. */
export interface OperatorGrant {
  identity: OperatorIdentity;
  projectId: string;
  env: Env;
  role: OperatorRole;
}

export const roleAllows = (held: OperatorRole, needed: OperatorRole): boolean => held === 'admin' || needed === 'viewer';

/** Emails are compared lower-cased (Firebase Authentication treats them case-insensitively). */
export const normaliseEmail = (email: string): string => email.trim().toLowerCase();

export const EMAIL_PATTERN = /^[^@\s/]{1,128}@[^@\s/]{1,253}$/;

/** The operator of `npm start`: signed in with the printed link, admin of every local project. */
export const LOCAL_OPERATOR: OperatorIdentity = { email: 'local-operator@localhost', uid: 'local', via: 'local' };

export const operatorConverter = storedRecord<OperatorRecord>();
