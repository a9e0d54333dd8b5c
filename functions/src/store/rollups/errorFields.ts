/**
 * What an error event's `properties` and `tags` say beyond the fingerprint: the stack trace
 * (`stack`, `stackTrace`, `error.stack`, `exception.stack`), the release (`tags.release`, else
 * `properties.release`), the error type and message (the fingerprint's own paths).
 */
export interface ErrorFields {
  type: string | null;
  message: string | null;
  stack: string | null;
  release: string | null;
}

export function errorFields(propertiesJson: string | null, tags: Record<string, string> | null): ErrorFields {
  let properties: unknown = null;
  try {
    properties = propertiesJson ? JSON.parse(propertiesJson) : null;
  } catch {
    properties = null;
  }
  const pick = (paths: string[][]) => firstString(properties, paths);
  return {
    type: pick([['errorType'], ['type'], ['error', 'type'], ['exception', 'type']]),
    message: pick([['message'], ['errorMessage'], ['error', 'message'], ['exception', 'message']]),
    stack: pick([['stack'], ['stackTrace'], ['error', 'stack'], ['exception', 'stack']]),
    release: tags?.release ?? pick([['release']]),
  };
}

function firstString(value: unknown, paths: string[][]): string | null {
  for (const path of paths) {
    let current: unknown = value;
    for (const key of path) current = typeof current === 'object' && current !== null && !Array.isArray(current) ? (current as Record<string, unknown>)[key] : undefined;
    if (typeof current === 'string' && current !== '') return current;
  }
  return null;
}
