/**
 * The shape rules every JSON value a request sends must obey before any part of it reaches a
 * handler, the store or a document id, checked by one iterative walk (no recursion, so no
 * nesting can overflow the stack here):
 *
 * - nesting: at most `MAX_JSON_DEPTH` containers (objects or arrays) deep, the body itself
 *   counting as the first. `JSON.stringify`, Firestore's serialiser and every other recursive
 *   consumer downstream then stay far inside the call stack.
 * - Unicode: every string, values and object keys alike, is well-formed (no lone UTF-16
 *   surrogate), since the store cannot hold anything else.
 */
export const MAX_JSON_DEPTH = 64;

/** A step of a path into a JSON value: an object key or an array index. */
export type PathSegment = string | number;

export type JsonProblem =
  /** A string value (`path` names it) is not well-formed Unicode. */
  | { kind: 'ill_formed_string'; path: PathSegment[] }
  /** An object key is not well-formed Unicode; `path` names the key itself. */
  | { kind: 'ill_formed_key'; path: PathSegment[] }
  /** The container at `path` is the first one nested deeper than the limit. */
  | { kind: 'too_deep'; path: PathSegment[]; maxDepth: number };

export interface JsonWalkOptions {
  /** Containers allowed on one path, the root included (default `MAX_JSON_DEPTH`). */
  maxDepth?: number;
  /** Check strings and keys for well-formed Unicode (default true). */
  checkStrings?: boolean;
}

interface Frame {
  container: Record<string, unknown> | unknown[];
  /** Object keys, or null for an array. */
  keys: string[] | null;
  next: number;
  /** Where this container sits in its parent (null for the root). */
  at: PathSegment | null;
}

/**
 * The first problem met in a depth-first walk of a parsed JSON value, or null when there is
 * none. Visits each value once; a container's keys are checked when it is entered.
 */
export function findJsonProblem(root: unknown, options: JsonWalkOptions = {}): JsonProblem | null {
  const maxDepth = options.maxDepth ?? MAX_JSON_DEPTH;
  const checkStrings = options.checkStrings ?? true;
  if (typeof root === 'string') return checkStrings && !root.isWellFormed() ? { kind: 'ill_formed_string', path: [] } : null;
  if (typeof root !== 'object' || root === null) return null;

  const stack: Frame[] = [];
  const pathTo = (last: PathSegment): PathSegment[] => [...stack.slice(1).map((frame) => frame.at as PathSegment), last];

  /** Pushes a container after checking its depth and keys; returns the problem, if any. */
  const enter = (container: object, at: PathSegment | null): JsonProblem | null => {
    if (stack.length >= maxDepth) return { kind: 'too_deep', path: pathTo(at as PathSegment), maxDepth };
    const keys = Array.isArray(container) ? null : Object.keys(container);
    stack.push({ container: container as Frame['container'], keys, next: 0, at });
    if (checkStrings && keys) {
      for (const key of keys) if (!key.isWellFormed()) return { kind: 'ill_formed_key', path: pathTo(key) };
    }
    return null;
  };

  const rootProblem = enter(root, null);
  if (rootProblem) return rootProblem;
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    const { container, keys } = frame;
    if (frame.next >= (keys ? keys.length : (container as unknown[]).length)) {
      stack.pop();
      continue;
    }
    const at: PathSegment = keys ? keys[frame.next] : frame.next;
    frame.next += 1;
    const child = keys ? (container as Record<string, unknown>)[at] : (container as unknown[])[at as number];
    if (typeof child === 'string') {
      if (checkStrings && !child.isWellFormed()) return { kind: 'ill_formed_string', path: pathTo(at) };
    } else if (typeof child === 'object' && child !== null) {
      const problem = enter(child, at);
      if (problem) return problem;
    }
  }
  return null;
}

/**
 * `['events', 3, 'properties', 'a']` → `events[3].properties.a`, the way validation messages
 * name fields. Keys are shown well-formed (a lone surrogate becomes U+FFFD); long paths keep
 * their first `maxSegments` steps and end in `…`.
 */
export function formatJsonPath(path: readonly PathSegment[], maxSegments = 12): string {
  const shown = path.slice(0, maxSegments);
  const text = shown.reduce<string>((acc, step) => (typeof step === 'number' ? `${acc}[${step}]` : acc ? `${acc}.${step.toWellFormed()}` : step.toWellFormed()), '');
  return path.length > maxSegments ? `${text}…` : text;
}

/** The problem in words, for a log line or an audit reason (`ill-formed Unicode at traits.plan`). */
export function describeJsonProblem(problem: JsonProblem): string {
  const field = formatJsonPath(problem.path) || 'body';
  switch (problem.kind) {
    case 'ill_formed_string':
      return `ill-formed Unicode at ${field}`;
    case 'ill_formed_key':
      return `ill-formed Unicode key at ${field}`;
    case 'too_deep':
      return `nesting deeper than ${problem.maxDepth} at ${field}`;
  }
}
