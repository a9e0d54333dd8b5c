import { AnyMap, TraceMap, type EncodedSourceMapXInput, type SectionedSourceMapXInput } from '@jridgewell/trace-mapping';
import { findJsonProblem, MAX_JSON_DEPTH } from '../wire/jsonShape';

/**
 * Reading a source map's bytes: UTF-8 JSON, optionally behind a BOM or the `)]}'` XSSI guard
 * line that the Source Map v3 format allows, describing a version 3 map (regular or indexed).
 * The same reader checks uploads and loads stored maps for resolution.
 */
export type SourceMapJson = EncodedSourceMapXInput | SectionedSourceMapXInput;

export class SourceMapFormatError extends Error {}

const XSSI_PREFIX = ")]}'";

export function parseSourceMapJson(bytes: Buffer): SourceMapJson {
  let text = bytes.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.startsWith(XSSI_PREFIX)) text = text.slice(text.indexOf('\n') + 1 || text.length);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new SourceMapFormatError('The source map is not valid JSON.');
  }
  // The checks below and trace-mapping recurse into nested `sections`; bound the nesting first.
  // Strings need no Unicode check: a map is stored as the bytes received.
  if (findJsonProblem(parsed, { checkStrings: false })) throw new SourceMapFormatError(`The source map nests more than ${MAX_JSON_DEPTH} levels deep.`);
  checkVersion3(parsed, 'The source map');
  return parsed as SourceMapJson;
}

function checkVersion3(value: unknown, what: string): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new SourceMapFormatError(`${what} is not a JSON object.`);
  const map = value as Record<string, unknown>;
  if (map.version !== 3) throw new SourceMapFormatError(`${what} is not a version 3 source map (\`version\` must be 3).`);
  if (map.sections !== undefined) {
    if (!Array.isArray(map.sections)) throw new SourceMapFormatError(`${what} has a \`sections\` field that is not an array.`);
    map.sections.forEach((section: unknown, i) => checkSection(section, `${what}'s section ${i}`));
    return;
  }
  if (typeof map.mappings !== 'string') throw new SourceMapFormatError(`${what} has no \`mappings\` string.`);
  if (!Array.isArray(map.sources) || !map.sources.every((s) => s === null || typeof s === 'string')) {
    throw new SourceMapFormatError(`${what} has no \`sources\` array of strings.`);
  }
  if (map.names !== undefined && (!Array.isArray(map.names) || !map.names.every((n) => typeof n === 'string'))) {
    throw new SourceMapFormatError(`${what} has a \`names\` field that is not an array of strings.`);
  }
  if (map.sourcesContent !== undefined && map.sourcesContent !== null && !Array.isArray(map.sourcesContent)) {
    throw new SourceMapFormatError(`${what} has a \`sourcesContent\` field that is not an array.`);
  }
}

function checkSection(value: unknown, what: string): void {
  if (typeof value !== 'object' || value === null) throw new SourceMapFormatError(`${what} is not an object.`);
  const section = value as Record<string, unknown>;
  const offset = section.offset as Record<string, unknown> | undefined;
  if (!offset || !Number.isInteger(offset.line) || !Number.isInteger(offset.column)) {
    throw new SourceMapFormatError(`${what} has no integer \`offset.line\` and \`offset.column\`.`);
  }
  // A section that points at another file by `url` cannot be resolved from stored data.
  if (section.map === undefined) throw new SourceMapFormatError(`${what} has no embedded \`map\`.`);
  checkVersion3(section.map, what);
}

/** Builds the trace-mapping index of a checked map; throws SourceMapFormatError if it cannot. */
export function toTraceMap(json: SourceMapJson): TraceMap {
  try {
    return 'sections' in json ? AnyMap(json) : new TraceMap(json);
  } catch (err) {
    throw new SourceMapFormatError(`The source map cannot be read: ${err instanceof Error ? err.message : String(err)}.`);
  }
}
