import { readFileSync } from 'node:fs';

/**
 * `node bench/lib/bench/profileSummary.js file.cpuprofile [per] [top]`: a V8 CPU profile's busy
 * time (idle excluded) by function, self and inclusive, in milliseconds and divided by `per` (the
 * requests or tasks of the window, so that two runs of different lengths compare), and by
 * package (the node_modules directory, Node's internals, the service's code, GC) — the tables
 * behind docs/benchmarks.md's profile comparisons.
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const IDLE = new Set(['(idle)', '(program)']);

function packageOf(url: string, name: string): string {
  if (name === '(garbage collector)') return 'GC';
  if (!url) return name.startsWith('(') ? name : 'native';
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith('node:')) return url.split('/').slice(0, url.startsWith('node:internal/') ? 3 : 1).join('/');
  const lib = url.indexOf('/functions/lib/');
  if (lib >= 0) return 'tessera:' + url.slice(lib + '/functions/lib/'.length).split('/')[0];
  return url;
}

function main(): void {
  const [file, perText, topText] = process.argv.slice(2);
  if (!file) throw new Error('usage: profileSummary.js file.cpuprofile [per] [top]');
  const per = Number(perText || 1);
  const top = Number(topText || 25);
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const selfMs = new Map<number, number>();
  // A sample stands for the interval until the next one (as DevTools draws it); the first delta is the profiler's start-up.
  profile.samples.forEach((id, index) => selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[index + 1] ?? 0) / 1000));

  const label = (node: ProfileNode) => `${node.callFrame.functionName || '(anonymous)'} ${packageOf(node.callFrame.url, node.callFrame.functionName)}:${node.callFrame.lineNumber + 1}`;
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const packages = new Map<string, number>();
  let busy = 0;
  for (const [id, ms] of selfMs) {
    const node = byId.get(id)!;
    if (IDLE.has(node.callFrame.functionName)) continue;
    busy += ms;
    self.set(label(node), (self.get(label(node)) ?? 0) + ms);
    const pkg = packageOf(node.callFrame.url, node.callFrame.functionName);
    packages.set(pkg, (packages.get(pkg) ?? 0) + ms);
    // Inclusive: once per distinct function on the sample's stack.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = label(byId.get(at)!);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + ms);
    }
  }
  const table = (title: string, entries: Map<string, number>) => {
    process.stdout.write(`\n${title}\n`);
    for (const [name, ms] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      process.stdout.write(`${(ms / per).toFixed(3).padStart(9)} ms/${per === 1 ? 'profile' : 'unit'} ${((100 * ms) / busy).toFixed(1).padStart(5)} %  ${name}\n`);
    }
  };
  process.stdout.write(`${file}: busy ${busy.toFixed(0)} ms, ${(busy / per).toFixed(3)} ms per unit (${per})\n`);
  table('by package (self)', packages);
  table('self time', self);
  table('inclusive time', inclusive);
}

main();
