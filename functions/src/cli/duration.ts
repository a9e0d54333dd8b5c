import { OperatorError } from './operatorError';

/** `7d`, `24h`, `90m`, `30s`, `0` → milliseconds. */
export function parseDuration(text: string): number {
  if (text === '0') return 0;
  const match = /^(\d+)(d|h|m|s)$/.exec(text);
  if (!match) throw new OperatorError('invalid_argument', `Cannot read duration '${text}': use forms like 7d, 24h, 1h, 30m or 0.`);
  const unit = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 }[match[2] as 'd' | 'h' | 'm' | 's'];
  return Number(match[1]) * unit;
}
