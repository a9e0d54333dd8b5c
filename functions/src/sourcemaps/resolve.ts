import { pathToFileURL } from 'node:url';
import { GREATEST_LOWER_BOUND, LEAST_UPPER_BOUND, originalPositionFor, type TraceMap } from '@jridgewell/trace-mapping';
import type { EnvScope } from '../store/scope';
import { fileUrlHash } from './hashing';
import { sourcemapLogs } from './logs';
import { loadSourceMaps } from './repository';
import { parseSourceMapJson, toTraceMap } from './sourceMapFormat';
import { parseStackTrace, type StackFrame } from './stackTrace';

/**
 * Resolution at read time: each frame's (file URL, line, column) through the release's stored
 * map for that file URL to the original source, line, column and name. Every map a call needs
 * is read once (two store reads for the whole trace) and indexed once.
 */
export interface OriginalPosition {
  /** The source as the map names it, with its `sourceRoot` applied and `./` segments normalised (by trace-mapping). */
  source: string;
  /** 1-based, like the stack trace's own positions. */
  line: number;
  column: number;
  name: string | null;
}

/** Why a frame stayed as it was: no position in the frame, no map for its file, no mapping at the position. */
export type UnresolvedReason = 'no_location' | 'no_sourcemap' | 'no_mapping';

export interface ResolvedFrame extends StackFrame {
  original: OriginalPosition | null;
  reason: UnresolvedReason | null;
}

export interface SymbolicatedTrace {
  release: string;
  message: string | null;
  frames: ResolvedFrame[];
}

export async function symbolicate(scope: EnvScope, release: string, stackTrace: string): Promise<SymbolicatedTrace> {
  const { message, frames } = parseStackTrace(stackTrace);
  return { release, message, frames: await resolveStackFrames(scope, release, frames) };
}

export async function resolveStackFrames(scope: EnvScope, release: string, frames: readonly StackFrame[]): Promise<ResolvedFrame[]> {
  const candidates = frames.map((frame) => (frame.fileUrl && frame.line ? candidateFileUrls(frame.fileUrl).map(fileUrlHash) : []));
  const stored = await loadSourceMaps(scope, release, candidates.flat());
  const indexes = new Map<string, TraceMap | null>();
  const indexOf = (hash: string): TraceMap | null => {
    if (!indexes.has(hash)) indexes.set(hash, buildIndex(scope, release, hash, stored.get(hash)?.bytes));
    return indexes.get(hash) ?? null;
  };

  return frames.map((frame, i) => {
    if (!frame.fileUrl || !frame.line) return { ...frame, original: null, reason: 'no_location' };
    const hash = candidates[i].find((candidate) => stored.has(candidate));
    const map = hash ? indexOf(hash) : null;
    if (!map) return { ...frame, original: null, reason: 'no_sourcemap' };
    const original = originalPosition(map, frame.line, frame.column);
    return original ? { ...frame, original, reason: null } : { ...frame, original: null, reason: 'no_mapping' };
  });
}

/**
 * The URLs under which a frame's file may have been uploaded: as printed; as a `file://` URL
 * when the engine printed a filesystem path (Node prints CommonJS frames that way); and each
 * without a query string or fragment (cache-busting suffixes).
 */
export function candidateFileUrls(location: string): string[] {
  const urls = [location];
  if (location.startsWith('/') || /^[A-Za-z]:[\\/]/.test(location)) urls.push(pathToFileURL(location).href);
  for (const url of [...urls]) urls.push(url.replace(/[?#].*$/, ''));
  return [...new Set(urls)];
}

/** Stack columns are 1-based and trace-mapping's are 0-based; an unknown column means the line's first mapping. */
function originalPosition(map: TraceMap, line: number, column: number | null): OriginalPosition | null {
  const needle = { line, column: column === null ? 0 : Math.max(0, column - 1) };
  let found = originalPositionFor(map, { ...needle, bias: column === null ? LEAST_UPPER_BOUND : GREATEST_LOWER_BOUND });
  if (found.source === null) found = originalPositionFor(map, { ...needle, bias: LEAST_UPPER_BOUND });
  if (found.source === null) return null;
  return { source: found.source, line: found.line, column: found.column + 1, name: found.name };
}

function buildIndex(scope: EnvScope, release: string, hash: string, bytes: Buffer | undefined): TraceMap | null {
  if (!bytes) return null;
  try {
    return toTraceMap(parseSourceMapJson(bytes));
  } catch (err) {
    sourcemapLogs.mapUnreadable(scope.projectId, scope.env, release, hash, err instanceof Error ? err.message : String(err));
    return null;
  }
}
