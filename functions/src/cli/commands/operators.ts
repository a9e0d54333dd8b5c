import { CLI_ACTOR } from '../../audit/operatorActor';
import { addOperator, listOperators, removeOperator } from '../../dashboard/operators';
import { OPERATOR_ROLES } from '../../dashboard/model';
import { requireOneOf, requireString, type Command } from '../command';

/** Dashboard operators of a project (dashboard/README.md): granted by email with a role; every change audited. */
export const operatorCommands: Command[] = [
  {
    name: 'operators add',
    summary: '--project ID --email EMAIL --role admin|viewer   (a viewer reads; an admin also changes; re-adding changes the role)',
    options: { project: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' } },
    async run(values, { db, clock }) {
      return addOperator(db, requireString(values, 'project'), requireString(values, 'email'), requireOneOf(values, 'role', OPERATOR_ROLES), CLI_ACTOR, clock.now());
    },
  },
  {
    name: 'operators list',
    summary: '--project ID',
    options: { project: { type: 'string' } },
    async run(values, { db }) {
      const projectId = requireString(values, 'project');
      return { projectId, operators: await listOperators(db, projectId) };
    },
  },
  {
    name: 'operators remove',
    summary: '--project ID --email EMAIL',
    options: { project: { type: 'string' }, email: { type: 'string' } },
    async run(values, { db, clock }) {
      return removeOperator(db, requireString(values, 'project'), requireString(values, 'email'), CLI_ACTOR, clock.now());
    },
  },
];
