import { loadSettings } from '../../config/settings';
import { setTelemetryRetention } from '../../events/retention';
import { OperatorError } from '../operatorError';
import { requireString, type Command } from '../command';

export const eventCommands: Command[] = [
  {
    name: 'events retention',
    summary: '--project ID (--days N | --default)   (telemetry TTL for events received from now on)',
    options: { project: { type: 'string' }, days: { type: 'string' }, default: { type: 'boolean' } },
    async run(values, { db }) {
      const projectId = requireString(values, 'project');
      const useDefault = values.default === true;
      if (useDefault === (values.days !== undefined)) throw new OperatorError('invalid_argument', 'Pass exactly one of --days N or --default.');
      const days = useDefault ? null : Number(values.days);
      await setTelemetryRetention(db, projectId, days);
      return { projectId, telemetryRetentionDays: days ?? loadSettings().telemetryRetentionDays, source: useDefault ? 'default' : 'project' };
    },
  },
];
