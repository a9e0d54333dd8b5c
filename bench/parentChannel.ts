import { ScenarioProfiler } from './scenarioProfile';
import type { ServerReply, ServerRequest } from './serverProtocol';

type Answer = Omit<ServerReply, 'id'>;

/** Requests every measured process answers the same way (answerParent answers them itself). */
type CommonRequest = Extract<ServerRequest, { type: 'cpu' | 'setSecrets' | 'profileStart' | 'profileStop' }>;
/** What a measured process answers in its own way. */
export type OwnRequest = Exclude<ServerRequest, CommonRequest>;

/**
 * How a measured process (`processName`: the server, the task worker) answers the bench over
 * IPC: one reply per request, carrying the request's id; a handler that throws answers with its
 * message. Its CPU time, its secrets' environment and its scenario profiles are answered here.
 */
export function answerParent(processName: string, handle: (request: OwnRequest) => Promise<Answer>): void {
  const profiler = new ScenarioProfiler(processName);
  const answer = async (request: ServerRequest): Promise<Answer> => {
    switch (request.type) {
      case 'cpu':
        return cpuAnswer();
      case 'setSecrets':
        Object.assign(process.env, request.secrets);
        return {};
      case 'profileStart':
        await profiler.start();
        return {};
      case 'profileStop':
        await profiler.stop(request.dir, request.label);
        return {};
      default:
        return handle(request);
    }
  };
  process.on('message', (request: ServerRequest) => {
    const reply = (answer: Answer) => process.send!({ id: request.id, ...answer } satisfies ServerReply);
    answer(request).then(reply, (err: unknown) => reply({ error: err instanceof Error ? err.message : String(err) }));
  });
}

/** A drain's answer: how long the background work took to finish. */
export async function timedDrain(drain: () => Promise<unknown>): Promise<Answer> {
  const started = Date.now();
  await drain();
  return { seconds: (Date.now() - started) / 1000 };
}

/** The process's CPU time so far (user + system), which the bench differences over a load. */
function cpuAnswer(): Answer {
  const usage = process.cpuUsage();
  return { cpuMicros: usage.user + usage.system };
}
