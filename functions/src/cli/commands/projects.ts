import { PLATFORMS } from '../../wire/vocabulary';
import { createApp, createProject } from '../../projects/repository';
import { archiveProject } from '../../keys/archive';
import { archiveApp } from '../../keys/archive';
import { optionalString, requireOneOf, requireString, stringList, type Command } from '../command';

export const projectCommands: Command[] = [
  {
    name: 'projects create',
    summary: '--name NAME',
    options: { name: { type: 'string' } },
    async run(values, { db, clock }) {
      const project = await createProject(db, requireString(values, 'name'), clock.now());
      return { projectId: project.projectId };
    },
  },
  {
    name: 'projects archive',
    summary: '--project ID   (every key of the project stops working)',
    options: { project: { type: 'string' } },
    async run(values, { db }) {
      const project = await archiveProject(db, requireString(values, 'project'));
      return { projectId: project.projectId, archived: true };
    },
  },
  {
    name: 'apps create',
    summary: '--project ID --platform web|ios|android [--name N] [--allowed-origin ORIGIN]… [--bundle-id ID] [--package-name NAME]',
    options: {
      project: { type: 'string' },
      platform: { type: 'string' },
      name: { type: 'string' },
      'allowed-origin': { type: 'string', multiple: true },
      'bundle-id': { type: 'string' },
      'package-name': { type: 'string' },
    },
    async run(values, { db, clock }) {
      const app = await createApp(
        db,
        {
          projectId: requireString(values, 'project'),
          platform: requireOneOf(values, 'platform', PLATFORMS),
          name: optionalString(values, 'name'),
          allowedOrigins: stringList(values, 'allowed-origin'),
          bundleId: optionalString(values, 'bundle-id'),
          packageName: optionalString(values, 'package-name'),
        },
        clock.now(),
      );
      return { appId: app.appId };
    },
  },
  {
    name: 'apps archive',
    summary: '--app ID   (every key of the app stops working)',
    options: { app: { type: 'string' } },
    async run(values, { db }) {
      const app = await archiveApp(db, requireString(values, 'app'));
      return { appId: app.appId, archived: true };
    },
  },
];
