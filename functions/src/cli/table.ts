/**
 * Plain-text tables for `--format table`: a header, a rule, and left-aligned text / right-aligned
 * numbers, padded to the widest cell. No colours or box drawing, so output pastes anywhere.
 */
export type Cell = string | number | null;

export function renderTable(headers: readonly string[], rows: readonly (readonly Cell[])[]): string {
  if (rows.length === 0) return '(none)\n';
  const text = rows.map((row) => row.map((cell) => (cell === null ? '–' : String(cell))));
  const numeric = headers.map((_, i) => rows.every((row) => typeof row[i] === 'number' || row[i] === null));
  const widths = headers.map((header, i) => Math.max(header.length, ...text.map((row) => row[i].length)));
  const line = (cells: readonly string[]) => cells.map((cell, i) => (numeric[i] ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join('  ').trimEnd();
  return `${[line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...text.map(line)].join('\n')}\n`;
}

/** `2026-11-25` (UTC) of a Unix-ms time; with `hour`, `2026-11-25 14:00`. */
export function utcTime(ms: number, hour = false): string {
  const iso = new Date(ms).toISOString();
  return hour ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : iso.slice(0, 10);
}

/** Minor units as an amount with its currency's decimals: 1999 usd → `19.99 USD`, 500 jpy → `500 JPY`. */
export function money(minor: number, currency: string): string {
  const code = currency.toUpperCase();
  let digits = 2;
  try {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    // Not an ISO 4217 code Intl knows: two decimals, as most currencies have.
  }
  return `${(minor / 10 ** digits).toFixed(digits)} ${code}`;
}
