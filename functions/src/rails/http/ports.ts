import type { PipelineDeps } from '../../http/deps';
import type { RequestContext } from '../../http/route';
import type { TaskQueue } from '../../tasks/queue';
import type { RailReadPorts } from '../edges';

/** What the rail notification routes use beyond the pipeline: the rails' edges, credentials and the queue. */
export interface RailRoutePorts extends RailReadPorts {
  tasks: TaskQueue;
}

export type RailRouteDeps = PipelineDeps & RailRoutePorts;
export type RailRequest = RequestContext<unknown, Record<string, string>, RailRoutePorts>;
