import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Session } from 'node:inspector/promises';

/**
 * BENCH_SCENARIO_CPU_PROF=dir: a V8 CPU profile of one process over each scenario's load window
 * only (the bench asks the server and the task worker to start before the load and to write
 * after it), so that a profile holds one scenario's work and nothing of the fixed-JSON floor,
 * the seeding or the other scenarios (BENCH_SERVER_CPU_PROF profiles a process's whole life).
 */
export class ScenarioProfiler {
  private session: Session | null = null;

  constructor(private readonly processName: string) {}

  async start(): Promise<void> {
    if (!this.session) {
      this.session = new Session();
      this.session.connect();
      await this.session.post('Profiler.enable');
    }
    await this.session.post('Profiler.start');
  }

  /** Writes `dir/<label>.<process>.cpuprofile` (Chrome DevTools opens it). */
  async stop(dir: string, label: string): Promise<void> {
    if (!this.session) throw new Error('no scenario profile was started');
    const { profile } = await this.session.post('Profiler.stop');
    await writeFile(join(dir, `${label}.${this.processName}.cpuprofile`), JSON.stringify(profile));
  }
}
