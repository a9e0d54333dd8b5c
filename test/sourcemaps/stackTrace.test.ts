/**
 * Guarantees (pure logic): stack traces as printed by V8, SpiderMonkey, JavaScriptCore and
 * Hermes become frames with the printed 1-based positions, the message is kept apart, and a
 * frame's file may be found under its printed form, its file:// form or without a query.
 */
import { candidateFileUrls } from '../../functions/src/sourcemaps/resolve';
import { parseStackTrace } from '../../functions/src/sourcemaps/stackTrace';

const location = (f: { fileUrl: string | null; line: number | null; column: number | null; function: string | null }) => [f.function, f.fileUrl, f.line, f.column];

describe('parseStackTrace', () => {
  it('reads V8 frames (named, anonymous, async, constructor, native, Hermes)', () => {
    const trace = [
      'TypeError: Cannot read properties of undefined (reading "x")',
      '    at Object.pay (https://app.example.com/static/main.3f2a.js:1:48202)',
      '    at https://app.example.com/static/main.3f2a.js:2:15',
      '    at async Promise.all (index 0)',
      '    at async submit (https://app.example.com/static/main.3f2a.js:1:900)',
      '    at new Cart (/srv/app/dist/cart.js:10:3)',
      '    at Array.map (<anonymous>)',
      '    at run (address at app:///index.android.bundle:1:2345)',
      '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
    ].join('\n');
    const { message, frames } = parseStackTrace(trace);
    expect(message).toBe('TypeError: Cannot read properties of undefined (reading "x")');
    expect(frames.map(location)).toEqual([
      ['Object.pay', 'https://app.example.com/static/main.3f2a.js', 1, 48202],
      [null, 'https://app.example.com/static/main.3f2a.js', 2, 15],
      ['Promise.all', null, null, null],
      ['submit', 'https://app.example.com/static/main.3f2a.js', 1, 900],
      ['new Cart', '/srv/app/dist/cart.js', 10, 3],
      ['Array.map', null, null, null],
      ['run', 'app:///index.android.bundle', 1, 2345],
      ['process.processTicksAndRejections', 'node:internal/process/task_queues', 95, 5],
    ]);
    expect(frames[0].raw).toBe('at Object.pay (https://app.example.com/static/main.3f2a.js:1:48202)');
  });

  it('reads SpiderMonkey and JavaScriptCore frames, including ports in URLs', () => {
    const trace = ['pay@https://app.example.com:8443/main.js:1:48202', 'Cart/<.submit@https://app.example.com:8443/main.js:3:7', '@https://app.example.com:8443/main.js:4:1', 'global code@https://app.example.com:8443/main.js:5', '[native code]'].join('\n');
    expect(parseStackTrace(trace).frames.map(location)).toEqual([
      ['pay', 'https://app.example.com:8443/main.js', 1, 48202],
      ['Cart/<.submit', 'https://app.example.com:8443/main.js', 3, 7],
      [null, 'https://app.example.com:8443/main.js', 4, 1],
      ['global code', 'https://app.example.com:8443/main.js', 5, null],
    ]);
    expect(parseStackTrace(trace).message).toBeNull();
  });

  it('keeps a multi-line message and ignores blank lines', () => {
    const { message, frames } = parseStackTrace('Error: first\nsecond line\n\n    at f (https://a.example/x.js:1:1)\n');
    expect(message).toBe('Error: first\nsecond line');
    expect(frames).toHaveLength(1);
  });
});

describe('candidateFileUrls', () => {
  it('tries the printed location, its file:// form and the form without query or fragment', () => {
    expect(candidateFileUrls('https://a.example/x.js?v=3#top')).toEqual(['https://a.example/x.js?v=3#top', 'https://a.example/x.js']);
    expect(candidateFileUrls('/srv/app/dist/main.js')).toEqual(['/srv/app/dist/main.js', 'file:///srv/app/dist/main.js']);
    expect(candidateFileUrls('app:///index.android.bundle')).toEqual(['app:///index.android.bundle']);
  });
});
