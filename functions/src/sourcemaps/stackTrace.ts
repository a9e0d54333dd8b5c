/**
 * Reads a JavaScript stack trace as printed by V8 (Chrome, Node, Edge), SpiderMonkey
 * (Firefox), JavaScriptCore (Safari) or Hermes (React Native) into frames. Lines and columns
 * are 1-based, as the engines print them. Lines that are not frames before the first frame
 * form the error message; a frame line without a usable position is kept with no location.
 */
export interface StackFrame {
  /** The line as printed, trimmed. */
  raw: string;
  function: string | null;
  fileUrl: string | null;
  line: number | null;
  column: number | null;
}

export interface ParsedStackTrace {
  message: string | null;
  frames: StackFrame[];
}

const V8_FRAME = /^\s*at\s+(.*)$/;
const GECKO_FRAME = /^\s*([^@]*)@(.+)$/;
const BARE_LOCATION = /^\s*([A-Za-z][A-Za-z0-9+.-]*:\/\/\S+:\d+(?::\d+)?)\s*$/;

export function parseStackTrace(text: string): ParsedStackTrace {
  const messageLines: string[] = [];
  const frames: StackFrame[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const frame = parseFrameLine(line);
    if (frame) frames.push(frame);
    else if (frames.length === 0) messageLines.push(line.trim());
  }
  return { message: messageLines.length > 0 ? messageLines.join('\n') : null, frames };
}

export function parseFrameLine(line: string): StackFrame | null {
  const raw = line.trim();
  const v8 = V8_FRAME.exec(line);
  if (v8) {
    let body = v8[1].trim().replace(/^async\s+/, '');
    let fn: string | null = null;
    const call = /^(.*?)\s+\((.*)\)$/.exec(body);
    if (call) {
      fn = call[1];
      body = call[2];
    }
    body = body.replace(/^address at\s+/, '');
    return { raw, function: fn, ...splitLocation(body) };
  }
  const bare = BARE_LOCATION.exec(line);
  if (bare) return { raw, function: null, ...splitLocation(bare[1]) };
  const gecko = GECKO_FRAME.exec(line);
  if (gecko && /:\d+(?::\d+)?$/.test(gecko[2].trim())) {
    return { raw, function: gecko[1] || null, ...splitLocation(gecko[2].trim()) };
  }
  return null;
}

/** `url:line:column` or `url:line`; anything else (native, eval, <anonymous>) has no location. */
function splitLocation(location: string): Pick<StackFrame, 'fileUrl' | 'line' | 'column'> {
  const match = /^(.+?):(\d+)(?::(\d+))?$/.exec(location);
  if (!match || match[1].startsWith('eval at ') || match[1] === '<anonymous>' || match[1] === 'native') {
    return { fileUrl: null, line: null, column: null };
  }
  return { fileUrl: match[1], line: Number(match[2]), column: match[3] === undefined ? null : Number(match[3]) };
}
