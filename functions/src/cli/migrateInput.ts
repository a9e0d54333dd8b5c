import { OperatorError } from './operatorError';

/**
 * The rows of a `tessera migrate` input file, each with the line it came from (so a refused row
 * is named by its line). Two formats:
 * - `.jsonl`: one JSON object per line, in the migration API's row shape; blank lines skipped.
 * - `.csv` (RFC 4180: quoted fields may hold commas, quotes as "" and line breaks): a header row
 *   naming each column after a row field (`developerUserId`, `email`, `displayName`,
 *   `stripeCustomerId`, `appleOriginalTransactionId`, …); `entitlements` lists the asserted keys
 *   separated by `;` or spaces; `traits.NAME` columns become traits (text). Empty cells are absent.
 * A line that cannot be read is an `unreadable` entry with its reason, never sent.
 */
export type InputEntry = { line: number; row: Record<string, unknown> } | { line: number; unreadable: string };

export function parseMigrationInput(fileName: string, text: string): InputEntry[] {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  if (/\.jsonl$|\.ndjson$/i.test(fileName)) return parseJsonLines(body);
  if (/\.csv$/i.test(fileName)) return parseCsvRows(body);
  throw new OperatorError('invalid_argument', `--file must end in .jsonl or .csv (got ${fileName}).`);
}

function parseJsonLines(text: string): InputEntry[] {
  const entries: InputEntry[] = [];
  text.split(/\r?\n/).forEach((content, i) => {
    if (content.trim() === '') return;
    try {
      const value: unknown = JSON.parse(content);
      if (typeof value !== 'object' || value === null || Array.isArray(value)) entries.push({ line: i + 1, unreadable: 'line_not_an_object' });
      else entries.push({ line: i + 1, row: value as Record<string, unknown> });
    } catch {
      entries.push({ line: i + 1, unreadable: 'line_invalid_json' });
    }
  });
  return entries;
}

function parseCsvRows(text: string): InputEntry[] {
  const records = csvRecords(text);
  if (records.length === 0) throw new OperatorError('invalid_argument', 'The CSV file is empty: it needs a header row naming its columns.');
  const [header, ...rows] = records;
  const columns = header.fields.map((name) => name.trim());
  if (!columns.includes('developerUserId')) throw new OperatorError('invalid_argument', 'The CSV header must name a developerUserId column.');
  return rows
    .filter((record) => record.fields.some((field) => field !== ''))
    .map((record) => {
      if (record.fields.length !== columns.length) return { line: record.line, unreadable: 'line_column_count' };
      const row: Record<string, unknown> = {};
      const traits: Record<string, string> = {};
      columns.forEach((column, i) => {
        const value = record.fields[i];
        if (value === '') return;
        if (column === 'entitlements') row.entitlements = Object.fromEntries(value.split(/[;\s]+/).filter(Boolean).map((key) => [key, true]));
        else if (column.startsWith('traits.')) traits[column.slice('traits.'.length)] = value;
        else row[column] = value;
      });
      if (Object.keys(traits).length > 0) row.traits = traits;
      return { line: record.line, row };
    });
}

/** RFC 4180 records with the line each starts on. */
function csvRecords(text: string): { line: number; fields: string[] }[] {
  const records: { line: number; fields: string[] }[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let recordLine = 1;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else {
        if (c === '\n') line += 1;
        field += c;
      }
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      fields.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i += 1;
      fields.push(field);
      records.push({ line: recordLine, fields });
      fields = [];
      field = '';
      line += 1;
      recordLine = line;
    } else field += c;
  }
  if (quoted) throw new OperatorError('invalid_argument', `The CSV file ends inside a quoted field (opened on line ${recordLine}).`);
  if (field !== '' || fields.length > 0) {
    fields.push(field);
    records.push({ line: recordLine, fields });
  }
  return records;
}
