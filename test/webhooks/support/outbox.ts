import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandContext, Values } from '../../../functions/src/cli/command';
import { COMMANDS } from '../../../functions/src/cli/registry';
import { LocalSecretWriter } from '../../../functions/src/secrets/writer';
import type { Env } from '../../../functions/src/store/env';
import { EnvScope } from '../../../functions/src/store/scope';
import { InProcessTaskQueue } from '../../../functions/src/tasks/inProcessQueue';
import type { EnqueueOptions, EnqueueResult, QueueName } from '../../../functions/src/tasks/queue';
import { WEBHOOK_DELIVERY_QUEUE, WEBHOOK_EVENTS, type DeliveryTaskPayload, type WebhookEventRecord } from '../../../functions/src/webhooks/eventModel';
import type { TestService } from '../../support/harness';

/**
 * The in-process queue of the tests, except that `webhookDelivery` tasks are recorded instead of
 * run (delivery is the other half of issue 13): what the fan-out handed to delivery, with the
 * same de-duplication by task id as any queue. `loseFanouts` makes every `webhookFanout`
 * enqueue fail, as if the process died between the change's commit and the enqueue.
 */
export class DeliveryRecordingQueue extends InProcessTaskQueue {
  readonly deliveries: { id: string; payload: DeliveryTaskPayload }[] = [];
  /** Every delivery enqueue, duplicates included. */
  deliveryAttempts = 0;
  /** Ids (= event ids) of every `webhookFanout` enqueue, duplicates included. */
  readonly fanoutIds: string[] = [];
  loseFanouts = false;
  private readonly deliveryIds = new Set<string>();

  constructor() {
    super({ backoffMs: () => 0 });
  }

  override async enqueue(queue: QueueName, payload: Record<string, unknown>, options: EnqueueOptions): Promise<EnqueueResult> {
    if (queue === WEBHOOK_DELIVERY_QUEUE) {
      this.deliveryAttempts += 1;
      if (this.deliveryIds.has(options.id)) return 'duplicate';
      this.deliveryIds.add(options.id);
      this.deliveries.push({ id: options.id, payload: payload as unknown as DeliveryTaskPayload });
      return 'enqueued';
    }
    if (queue === 'webhookFanout') this.fanoutIds.push(options.id);
    if (queue === 'webhookFanout' && this.loseFanouts) throw new Error('process died before the fan-out was enqueued');
    return super.enqueue(queue, payload, options);
  }

  deliveriesOf(eventId: string): { id: string; payload: DeliveryTaskPayload }[] {
    return this.deliveries.filter((d) => d.payload.eventId === eventId);
  }
}

const secretsFile = join(mkdtempSync(join(tmpdir(), 'tessera-outbox-')), 'secrets.json');

/** Runs an operator command (`webhooks create`, `conflicts resolve`, …) as the CLI does. */
export async function tessera(service: TestService, name: string, values: Values): Promise<any> {
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) throw new Error(`no command ${name}`);
  const ctx: CommandContext = { db: service.deps.db, clock: service.clock, stdin: async () => '', secrets: new LocalSecretWriter(secretsFile) };
  return command.run(values, ctx);
}

let endpointCount = 0;
/**
 * A registered endpoint (public address). Nothing is sent: its signing secret is in this file's
 * secrets file, which the service under test does not read, so the fan-out task cannot sign a
 * first attempt and leaves every delivery to its task, which this queue records (firstAttempts.ts).
 */
export async function createEndpoint(service: TestService, projectId: string, env: Env, eventTypes: string[] = []): Promise<string> {
  endpointCount += 1;
  const created = await tessera(service, 'webhooks create', { project: projectId, env, url: `https://93.184.215.14/hooks/${endpointCount}`, event: eventTypes });
  return created.endpointId as string;
}

/** Every outbox event of a partition, oldest first (optionally one customer's). */
export async function eventsOf(service: TestService, projectId: string, env: Env, customerId?: string): Promise<WebhookEventRecord[]> {
  const snapshot = await new EnvScope(service.deps.db, projectId, env).collection(WEBHOOK_EVENTS).get();
  return snapshot.docs
    .map((d) => d.data() as WebhookEventRecord)
    .filter((e) => customerId === undefined || (e.payload.data as { serviceCustomerId?: string }).serviceCustomerId === customerId)
    .sort((a, b) => a.createdAt - b.createdAt || ((a.payload.data.sequence as number) ?? 0) - ((b.payload.data.sequence as number) ?? 0));
}
