import type { ServerReply, ServerRequest } from './serverProtocol';

type Answer = Omit<ServerReply, 'id'>;

/**
 * How a measured process (the server, the task worker) answers the bench over IPC: one reply per
 * request, carrying the request's id; a handler that throws answers with its message.
 */
export function answerParent(handle: (request: ServerRequest) => Promise<Answer>): void {
  process.on('message', (request: ServerRequest) => {
    const reply = (answer: Answer) => process.send!({ id: request.id, ...answer } satisfies ServerReply);
    handle(request).then(reply, (err: unknown) => reply({ error: err instanceof Error ? err.message : String(err) }));
  });
}

/** A drain's answer: how long the background work took to finish. */
export async function timedDrain(drain: () => Promise<unknown>): Promise<Answer> {
  const started = Date.now();
  await drain();
  return { seconds: (Date.now() - started) / 1000 };
}

/** The process's CPU time so far (user + system), which the bench differences over a load. */
export function cpuAnswer(): Answer {
  const usage = process.cpuUsage();
  return { cpuMicros: usage.user + usage.system };
}
