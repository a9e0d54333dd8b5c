import type { Firestore, Transaction } from 'firebase-admin/firestore';
import { appendAudit, newServerEventId } from '../audit/append';
import { operatorChangeEntry, type OperatorActor } from '../audit/operatorActor';
import { DomainError } from '../errors/domain';
import { getProject } from '../projects/repository';
import { ENVS } from '../store/env';
import { scopesOfProject } from '../store/partitions';
import { EMAIL_PATTERN, normaliseEmail, operatorConverter, OPERATORS, type OperatorRecord, type OperatorRole } from './model';

/**
 * The operator registry (`tessera operators add|list|remove`). Each change is one transaction
 * with its audit entry, written to both environments' logs (an operator sees both).
 */

const operatorsOf = (db: Firestore, projectId: string) => db.collection('projects').doc(projectId).collection(OPERATORS).withConverter(operatorConverter);
const operatorRef = (db: Firestore, projectId: string, email: string) => operatorsOf(db, projectId).doc(email);

function checkedEmail(raw: string): string {
  const email = normaliseEmail(raw);
  if (!EMAIL_PATTERN.test(email)) throw new DomainError('invalid_argument', `'${raw.slice(0, 80)}' is not an email address.`);
  return email;
}

export async function addOperator(db: Firestore, projectId: string, rawEmail: string, role: OperatorRole, actor: OperatorActor, now: number): Promise<OperatorRecord & { auditEventId: string }> {
  const email = checkedEmail(rawEmail);
  const project = await getProject(db, projectId);
  if (project.archived) throw new DomainError('archived', `Project ${projectId} is archived.`);
  return db.runTransaction(async (tx) => {
    const ref = operatorRef(db, projectId, email);
    const current = await tx.get(ref);
    const before = current.data() ?? null;
    const record: OperatorRecord = { email, projectId, role, addedAt: before?.addedAt ?? now, updatedAt: now };
    tx.set(ref, record);
    const auditEventId = auditOperatorChange(db, tx, projectId, actor, now, before ? 'operator.role_changed' : 'operator.added', `Operator ${email} ${before ? `changed from ${before.role} to` : 'granted'} ${role} on project ${projectId}.`, before?.role ?? null, role, { email });
    return { ...record, auditEventId };
  });
}

export async function removeOperator(db: Firestore, projectId: string, rawEmail: string, actor: OperatorActor, now: number): Promise<{ email: string; projectId: string; removed: true; auditEventId: string }> {
  const email = checkedEmail(rawEmail);
  return db.runTransaction(async (tx) => {
    const ref = operatorRef(db, projectId, email);
    const current = await tx.get(ref);
    if (!current.exists) throw new DomainError('not_found', `${email} is not an operator of project ${projectId}.`);
    const before = current.data()!;
    tx.delete(ref);
    const auditEventId = auditOperatorChange(db, tx, projectId, actor, now, 'operator.removed', `Operator ${email} (${before.role}) removed from project ${projectId}.`, before.role, null, { email });
    return { email, projectId, removed: true as const, auditEventId };
  });
}

export async function listOperators(db: Firestore, projectId: string): Promise<OperatorRecord[]> {
  await getProject(db, projectId);
  const snapshot = await operatorsOf(db, projectId).get();
  return snapshot.docs.map((d) => d.data()).sort((a, b) => a.email.localeCompare(b.email));
}

/** The operator's role on the project, or null (one document read by id). */
export async function operatorRole(db: Firestore, projectId: string, email: string): Promise<OperatorRole | null> {
  const snapshot = await operatorRef(db, projectId, normaliseEmail(email)).get();
  return snapshot.data()?.role ?? null;
}

/** Every project the operator is granted on (collection-group query on `email`; index in firestore.indexes.json). */
export async function projectsOfOperator(db: Firestore, email: string): Promise<{ projectId: string; role: OperatorRole }[]> {
  const snapshot = await db.collectionGroup(OPERATORS).withConverter(operatorConverter).where('email', '==', normaliseEmail(email)).get();
  return snapshot.docs
    .filter((d) => d.ref.parent.parent?.parent.id === 'projects')
    .map((d) => d.data())
    .map(({ projectId, role }) => ({ projectId, role }))
    .sort((a, b) => a.projectId.localeCompare(b.projectId));
}

function auditOperatorChange(db: Firestore, tx: Transaction, projectId: string, actor: OperatorActor, now: number, eventType: string, reason: string, from: string | null, to: string | null, details: Record<string, unknown>): string {
  const eventId = newServerEventId('operator');
  const scopes = scopesOfProject(db, projectId);
  for (const env of ENVS) {
    appendAudit(tx, scopes[env], operatorChangeEntry({ eventId, eventType, reason, fromState: from, toState: to, now, actor, details }));
  }
  return eventId;
}
