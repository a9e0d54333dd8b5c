import { SCHEDULED_WORKERS, type WorkerName } from '../../app/workers/scheduled';

/**
 * Scheduled functions under the emulator suite. Deployed, Cloud Scheduler calls a v2
 * `onSchedule` function over HTTP (`X-CloudScheduler-JobName`, `X-CloudScheduler-ScheduleTime`).
 * firebase-tools 15's functions emulator never does: it subscribes the function to a Pub/Sub
 * emulator topic, then cannot deliver to it ("Unsupported trigger signature: http"). So the
 * suite's own timer and `tessera workers run` make Cloud Scheduler's call to the functions
 * emulator, which runs the worker inside the suite; the call answers once the run is done.
 */

/**
 * The emulator's key of a scheduled function: `<region>-<name>-<generation>` (the generation
 * grows when the emulator reloads the functions). Read from the emulator's own list of
 * functions, which it sends with a 404 for an unknown name.
 */
export async function scheduledTriggerKey(functionsHost: string, projectId: string, name: string): Promise<string> {
  const response = await fetch(`http://${functionsHost}/functions/projects/${projectId}/triggers/tessera-list-functions`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
  const text = await response.text();
  const keys = (/valid functions are: (.*)$/s.exec(text)?.[1] ?? '').split(',').map((key) => key.trim());
  const pattern = new RegExp(`^[a-z0-9-]+-${name}-(\\d+)$`);
  const matching = keys.filter((key) => pattern.test(key)).sort((a, b) => Number(pattern.exec(b)![1]) - Number(pattern.exec(a)![1]));
  if (matching.length === 0) throw new Error(`the functions emulator at ${functionsHost} has no scheduled function ${name} (is the suite up?)`);
  return matching[0];
}

/** Makes Cloud Scheduler's call; resolves when the worker has run (its HTTP answer). */
export async function triggerWorker(functionsHost: string, projectId: string, worker: WorkerName, now = new Date()): Promise<{ function: string; status: number }> {
  const name = SCHEDULED_WORKERS[worker].function;
  const key = await scheduledTriggerKey(functionsHost, projectId, name);
  const region = key.slice(0, key.lastIndexOf(`-${name}-`));
  const response = await fetch(`http://${functionsHost}/functions/projects/${projectId}/triggers/${key}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-CloudScheduler-JobName': `firebase-schedule-${name}-${region}`, 'X-CloudScheduler-ScheduleTime': now.toISOString() },
    body: '{}',
  });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${name} failed under the functions emulator (HTTP ${response.status}); its error is in the suite's output`);
  return { function: key, status: response.status };
}

/** "every 60 minutes" → 3,600,000 ms (the only form index.ts's schedules use). */
export function everyMs(schedule: string): number {
  const match = /^every (\d+) (minute|minutes|hour|hours)$/.exec(schedule.trim());
  if (!match) throw new Error(`unsupported schedule '${schedule}' (expected 'every N minutes|hours')`);
  return Number(match[1]) * (match[2].startsWith('hour') ? 3_600_000 : 60_000);
}
