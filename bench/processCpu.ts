import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time of other processes the bench started, from Linux's /proc (null elsewhere): the
 * Firestore emulator's JVM above all, which shares the 2 cores with the server and the task
 * worker, so that a scenario's CPU per request can be told per process (server, task worker,
 * store) instead of guessed from the machine's load.
 */
let ticksPerSecond: number | null = null;

function clockTicks(): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  return ticksPerSecond;
}

interface Stat {
  pid: number;
  ppid: number;
  cpuTicks: number;
}

function readStat(pid: number): Stat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command's closing parenthesis: state, ppid, … utime (12th), stime (13th).
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { pid, ppid: Number(fields[1]), cpuTicks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return null;
  }
}

/** The CPU milliseconds (user + system) so far of the descendants of `rootPid` whose command line matches; null without /proc or without such a process. */
export function descendantsCpuMs(rootPid: number, command: RegExp): number | null {
  let pids: number[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name)).map(Number);
  } catch {
    return null;
  }
  const stats = pids.map(readStat).filter((stat): stat is Stat => stat !== null);
  const parentOf = new Map(stats.map((stat) => [stat.pid, stat.ppid]));
  const descends = (pid: number) => {
    for (let at = parentOf.get(pid); at !== undefined && at > 1; at = parentOf.get(at)) if (at === rootPid) return true;
    return false;
  };
  let ticks = 0;
  let found = false;
  for (const stat of stats) {
    if (!descends(stat.pid)) continue;
    let commandLine = '';
    try {
      commandLine = readFileSync(`/proc/${stat.pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!command.test(commandLine)) continue;
    found = true;
    ticks += stat.cpuTicks;
  }
  return found ? (ticks * 1000) / clockTicks() : null;
}
