/**
 * A request value's `JSON.stringify`, computed once: validation bounds a value's serialised size
 * (`x-maxJsonBytes`, http/validation.ts) and the handler stores that same text (an event's
 * `properties`, events/validation.ts), so the text is kept per object.
 */
const serialised = new WeakMap<object, string>();

export function serialisedJson(value: object): string {
  let text = serialised.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    serialised.set(value, text);
  }
  return text;
}
