import type { PipelineDeps } from '../../http/deps';
import type { Reply, RequestContext } from '../../http/route';
import type { TaskQueue } from '../../tasks/queue';
import type { RailReadPorts } from '../edges';
import type { RailNotificationResponse, WebhookParams } from '../../wire/rails';

/** What the rail notification routes use beyond the pipeline: the rails' edges, credentials and the queue. */
export interface RailRoutePorts extends RailReadPorts {
  tasks: TaskQueue;
}

export type RailRouteDeps = PipelineDeps & RailRoutePorts;
export type RailRequest = RequestContext<unknown, Record<string, string>, WebhookParams, RailRoutePorts>;

/** A rail's answer once its decision is recorded (wire/rails). */
export type RailReply = Reply<RailNotificationResponse>;
