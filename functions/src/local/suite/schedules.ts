/**
 * Scheduled functions under the emulator suite: firebase-tools' functions emulator subscribes
 * each `onSchedule` function to a Pub/Sub emulator topic (`firebase-schedule-<name>…`) but never
 * publishes to it on the schedule. Publishing a message runs the function inside the suite,
 * exactly as Cloud Scheduler's message does deployed. Used by the suite's own timer and by
 * `tessera workers run`.
 */
export const WORKER_FUNCTIONS = { retention: 'retentionWorker', webhooks: 'webhookWorker' } as const;
export type WorkerName = keyof typeof WORKER_FUNCTIONS;

export function isWorkerName(value: string): value is WorkerName {
  return Object.hasOwn(WORKER_FUNCTIONS, value);
}

export async function scheduleTopic(pubsubHost: string, projectId: string, worker: WorkerName): Promise<string> {
  const response = await fetch(`http://${pubsubHost}/v1/projects/${projectId}/topics`);
  if (!response.ok) throw new Error(`the Pub/Sub emulator answered ${response.status} listing topics`);
  const { topics = [] } = (await response.json()) as { topics?: { name: string }[] };
  const name = topics.map((t) => t.name.split('/').pop()!).find((t) => t.startsWith('firebase-schedule-') && t.endsWith(WORKER_FUNCTIONS[worker]));
  if (!name) throw new Error(`no schedule topic for ${WORKER_FUNCTIONS[worker]} on the Pub/Sub emulator (is the suite's functions emulator up?)`);
  return name;
}

/** Publishes the scheduler's message; the functions emulator runs the worker. Returns the message id. */
export async function triggerWorker(pubsubHost: string, projectId: string, worker: WorkerName): Promise<{ topic: string; messageId: string }> {
  const topic = await scheduleTopic(pubsubHost, projectId, worker);
  const response = await fetch(`http://${pubsubHost}/v1/projects/${projectId}/topics/${topic}:publish`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ messages: [{ data: Buffer.from(JSON.stringify({ worker, trigger: 'tessera' })).toString('base64') }] }),
  });
  if (!response.ok) throw new Error(`the Pub/Sub emulator refused to publish to ${topic}: ${response.status} ${await response.text()}`);
  const { messageIds } = (await response.json()) as { messageIds: string[] };
  return { topic, messageId: messageIds[0] };
}

/** "every 60 minutes" → 3,600,000 ms (the only form index.ts's schedules use). */
export function everyMs(schedule: string): number {
  const match = /^every (\d+) (minute|minutes|hour|hours)$/.exec(schedule.trim());
  if (!match) throw new Error(`unsupported schedule '${schedule}' (expected 'every N minutes|hours')`);
  return Number(match[1]) * (match[2].startsWith('hour') ? 3_600_000 : 60_000);
}
