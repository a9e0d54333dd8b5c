/**
 * The Targets rows of several rounds (`| [round k] scenario | target | figure | yes/no |`, as
 * bench/run.ts writes them) grouped by scenario and target: in how many rounds each was met, and
 * its figure round by round. A target met in one run and missed in the next is not met.
 */
export function acrossRounds(targetRows: readonly string[]): string[] {
  const groups = new Map<string, { met: number; figures: string[] }>();
  for (const row of targetRows) {
    const [name, target, figure, met] = row.slice(2, -2).split(' | ');
    // `[round 2] name` → `name`; `[held, round 2] name` → `[held] name` (a task shape stays apart).
    const key = `${name.replace(/^\[(?:([^\],]+), )?round \d+\] /, (_, shape?: string) => (shape ? `[${shape}] ` : ''))} | ${target}`;
    const group = groups.get(key) ?? { met: 0, figures: [] };
    if (met === 'yes') group.met += 1;
    group.figures.push(figure);
    groups.set(key, group);
  }
  return [...groups].map(([key, { met, figures }]) => `| ${key} | ${met} of ${figures.length} | ${figures.join('; ')} |`);
}
