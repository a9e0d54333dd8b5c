import { randomDemoSpec, seedDemo } from '../../local/seed';
import type { Command } from '../command';

export const demoCommands: Command[] = [
  {
    name: 'demo',
    summary: 'creates a demo project with a web, an iOS and an Android app and prints their test and live keys',
    options: {},
    async run(_values, { db, clock }) {
      const demo = await seedDemo(db, randomDemoSpec(), clock.now());
      return { projectId: demo.projectId, apps: demo.apps };
    },
  },
];
