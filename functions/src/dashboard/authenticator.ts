import type { Firestore } from 'firebase-admin/firestore';
import type { Clock } from '../clock';
import { ApiError } from '../http/errors';
import type { OperatorGate, OperatorRequest } from '../http/operatorGate';
import type { EnvScope } from '../store/scope';
import { isEnv } from '../store/env';
import type { SecretWriter } from '../secrets/writer';
import type { TaskQueue } from '../tasks/queue';
import type { ConsolePorts, OperatorConsole } from './console';
import { OperatorTokenRejected, type OperatorTokenVerifier } from './firebaseTokens';
import { SESSION_PREFIX, type LocalSessions } from './localSessions';
import { dashboardLogs } from './logs';
import { LOCAL_OPERATOR, OPERATOR_SIGN_OUTS, roleAllows, type OperatorIdentity, type OperatorRole } from './model';

/**
 * The dashboard's authority, in the shared pipeline's place of the API key: who is signed in
 * (`Authorization: Bearer` with a Firebase Authentication ID token, or locally a session token
 * from the run's login link) and what they may do in the project and environment the path
 * names. A viewer reads; an admin also changes things (`403 insufficient_scope` otherwise).
 * The environment is always explicit in the path; the console it opens can reach only that
 * project's partition of that environment.
 */
/** The signed-in operator of an `operator` route (`ctx.operator`). */
export interface OperatorSession {
  identity: OperatorIdentity;
  /** The console of the path's project and environment; only on routes inside a project (others throw). */
  console: OperatorConsole;
}

export interface OperatorAuthenticatorPorts {
  clock: Clock;
  tasks: TaskQueue;
  tokens: OperatorTokenVerifier;
  allowLoopbackWebhooks: boolean;
  secrets?: SecretWriter;
}

export class OperatorAuthenticator implements OperatorGate<OperatorSession> {
  private local: LocalSessions | null = null;

  constructor(
    private readonly db: Firestore,
    private readonly ports: OperatorAuthenticatorPorts,
  ) {}

  /**
   * `npm start` (and the tests) only: accept the local stack's one-time sign-in link
   * (local/localLogin.ts). Deployed, nothing calls this, and a `tds_` token is always refused.
   */
  allowLocalSignIn(sessions: LocalSessions): void {
    this.local = sessions;
  }

  /** The local link's token for a session token; `401 operator_unauthenticated` when it is not this run's. */
  exchangeLocalLogin(loginToken: string): { sessionToken: string; expiresAt: number; operator: OperatorIdentity } {
    const session = this.local?.exchange(loginToken, this.ports.clock.now()) ?? null;
    if (!session) throw new ApiError('operator_unauthenticated', 'That sign-in link is not valid: each link signs in once, and only during the run of the local stack that printed it; use the latest link `npm start` printed.');
    return { ...session, operator: LOCAL_OPERATOR };
  }

  async identify(authorization: string | undefined): Promise<OperatorIdentity> {
    const match = authorization === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) throw new ApiError('operator_unauthenticated', 'Sign in: send `Authorization: Bearer <Firebase ID token>` (or the local session token).');
    const token = match[1];
    if (token.startsWith(SESSION_PREFIX)) {
      if (this.local?.accepts(token, this.ports.clock.now())) return LOCAL_OPERATOR;
      throw new ApiError('operator_unauthenticated', 'The local session has ended; sign in again with the link `npm start` printed.');
    }
    let identity: OperatorIdentity;
    try {
      identity = await this.ports.tokens.verify(token);
    } catch (err) {
      if (!(err instanceof OperatorTokenRejected)) throw err;
      throw new ApiError('operator_unauthenticated', 'The sign-in token is not valid (expired, malformed, or not from this project’s Firebase Authentication); sign in again.', { internal: err.message });
    }
    if (await this.signedOutSince(identity)) throw new ApiError('operator_unauthenticated', 'You signed out of the dashboard; sign in again.');
    return identity;
  }

  /**
   * Sign-out ends the session on the server. Local: the session token is forgotten. Firebase:
   * the time is recorded per user, and every ID token of a sign-in before it (refreshed ones
   * too: they keep their `auth_time`) is refused from then on; signing in again starts anew.
   */
  async signOut(authorization: string | undefined): Promise<{ signedOut: true }> {
    const identity = await this.identify(authorization);
    if (identity.via === 'local') {
      this.local?.end(/^Bearer\s+(\S+)/i.exec(authorization!)![1]);
    } else {
      await this.db.collection(OPERATOR_SIGN_OUTS).doc(identity.uid).set({ uid: identity.uid, signedOutAt: this.ports.clock.now() });
    }
    return { signedOut: true };
  }

  private async signedOutSince(identity: OperatorIdentity): Promise<boolean> {
    const record = await this.db.collection(OPERATOR_SIGN_OUTS).doc(identity.uid).get();
    if (!record.exists) return false;
    // auth_time has whole seconds: a sign-in in the very second of a sign-out counts as before it.
    return identity.signedInAt === undefined || identity.signedInAt <= Number(record.get('signedOutAt'));
  }

  /** The session of an operator request: identity, and on project routes the role check, the console and its scope. */
  async authorise(request: OperatorRequest): Promise<{ operator: OperatorSession; scope: EnvScope | null }> {
    const identity = await this.identify(request.authorization);
    if (request.projectId === undefined) return { operator: sessionOf(identity, null), scope: null };
    const { projectId, env } = request;
    if (!isEnv(env)) throw new ApiError('invalid_param_value', 'The environment in the path must be `test` or `live`.');
    if (!/^[A-Za-z0-9_-]{1,128}$/.test(projectId)) throw new ApiError('insufficient_scope', 'You are not an operator of that project.');
    const role = await this.roleOn(identity, projectId);
    if (!role) {
      dashboardLogs.operatorRefused(request.requestId, identity.email, projectId, 'not an operator');
      throw new ApiError('insufficient_scope', 'You are not an operator of that project.');
    }
    if (!roleAllows(role, request.needs)) {
      dashboardLogs.operatorRefused(request.requestId, identity.email, projectId, `role ${role}, needs ${request.needs}`);
      throw new ApiError('insufficient_scope', `This needs the ${request.needs} role on the project; you are a ${role}.`);
    }
    if (request.method !== 'GET') dashboardLogs.operatorChange(request.requestId, identity.email, projectId, env, request.method);
    const { OperatorConsole } = await import('./console');
    const ports: ConsolePorts = {
      clock: this.ports.clock,
      tasks: this.ports.tasks,
      allowLoopbackWebhooks: this.ports.allowLoopbackWebhooks,
      secrets: this.ports.secrets,
    };
    const console = new OperatorConsole(this.db, { identity, projectId, env, role }, { surface: 'dashboard', operator: identity.email, requestId: request.requestId }, ports);
    return { operator: sessionOf(identity, console), scope: console.scope };
  }

  /** Projects the operator may open, with the role held on each. */
  async projects(identity: OperatorIdentity): Promise<{ projectId: string; name: string; role: OperatorRole; archived: boolean }[]> {
    let grants: { projectId: string; role: OperatorRole }[];
    if (identity.via === 'local') {
      const all = await this.db.collection('projects').get();
      grants = all.docs.map((d) => ({ projectId: d.id, role: 'admin' as const }));
    } else {
      const { projectsOfOperator } = await import('./operators');
      grants = await projectsOfOperator(this.db, identity.email);
    }
    if (grants.length === 0) return [];
    const snapshots = await this.db.getAll(...grants.map((g) => this.db.collection('projects').doc(g.projectId)));
    return grants
      .map((g, i) => ({ ...g, snapshot: snapshots[i] }))
      .filter((g) => g.snapshot.exists)
      .map((g) => ({ projectId: g.projectId, role: g.role, name: String(g.snapshot.get('name') ?? g.projectId), archived: g.snapshot.get('archived') === true }))
      .sort((a, b) => a.name.localeCompare(b.name) || a.projectId.localeCompare(b.projectId));
  }

  private async roleOn(identity: OperatorIdentity, projectId: string): Promise<OperatorRole | null> {
    if (identity.via === 'local') {
      // The local operator administers every project of the local stack (that exists).
      const project = await this.db.collection('projects').doc(projectId).get();
      return project.exists ? 'admin' : null;
    }
    const { operatorRole } = await import('./operators');
    return operatorRole(this.db, projectId, identity.email);
  }
}

function sessionOf(identity: OperatorIdentity, console: OperatorConsole | null): OperatorSession {
  return {
    identity,
    get console() {
      if (!console) throw new Error('this operator route is outside a project; ctx.operator.console is unavailable');
      return console;
    },
  };
}
