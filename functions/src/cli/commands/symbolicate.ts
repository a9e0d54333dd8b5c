import { getProject } from '../../projects/repository';
import { RELEASE } from '../../ids';
import { symbolicate } from '../../sourcemaps/resolve';
import { ENVS } from '../../store/env';
import { EnvScope } from '../../store/scope';
import { requireOneOf, requireString, type Command } from '../command';
import { OperatorError } from '../operatorError';

export const symbolicateCommands: Command[] = [
  {
    name: 'symbolicate',
    summary: '--project ID --env test|live --release R   (reads a stack trace on stdin, prints the resolved frames)',
    options: { project: { type: 'string' }, env: { type: 'string' }, release: { type: 'string' } },
    async run(values, { db, stdin }) {
      const projectId = requireString(values, 'project');
      const env = requireOneOf(values, 'env', ENVS);
      const release = requireString(values, 'release');
      if (!RELEASE.is(release)) throw new OperatorError('invalid_argument', '--release must be 1–64 characters: letters, digits, `.`, `_` or `-`.');
      await getProject(db, projectId);
      const stackTrace = await stdin();
      if (stackTrace.trim() === '') throw new OperatorError('invalid_argument', 'Pipe a stack trace on standard input.');
      const result = await symbolicate(new EnvScope(db, projectId, env), release, stackTrace);
      return { projectId, env, ...result };
    },
  },
];
