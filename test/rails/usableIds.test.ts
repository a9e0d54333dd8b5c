/**
 * Guarantees of the pure checks that keep rail payload strings storable (store/ids.ts,
 * rails/stripe/shape.ts): a usable document id is non-empty, well-formed Unicode, bounded, has
 * no `/` and is not `.`, `..` or `__…__`; an ill-formed string is found anywhere in a JSON value
 * (keys included, however deep); truncation never leaves a lone surrogate; a Stripe body is an
 * event only with a usable id, a type, a created time, a livemode and a `data.object`.
 */
import { isUsableDocId, MAX_DOC_ID_BYTES, truncateText } from '../../functions/src/store/ids';
import { stripeEventProblem } from '../../functions/src/rails/stripe/shape';

describe('isUsableDocId', () => {
  it.each(['evt_1NG8Du2eZvKYlo2C', '9f0e6c1e-4d3a-4b8e-9a6f-1c2d3e4f5a6b', '2000000000001', 'a.b', '_x_', 'é😀'])('accepts %s', (id) => {
    expect(isUsableDocId(id)).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['a dot', '.'],
    ['two dots', '..'],
    ['a slash', 'cdcust_../../x'],
    ['reserved', '__evt__'],
    ['a lone high surrogate', '\ud800'],
    ['a lone low surrogate', 'a\udc00b'],
    ['a reversed pair', '\ude00\ud83d'],
    ['too long', 'x'.repeat(MAX_DOC_ID_BYTES + 1)],
    ['too many bytes', 'é'.repeat(MAX_DOC_ID_BYTES / 2 + 1)],
  ])('refuses %s', (_, id) => {
    expect(isUsableDocId(id)).toBe(false);
  });

  it.each([null, undefined, 7, {}, ['evt_1'], true])('refuses the non-string %p', (id) => {
    expect(isUsableDocId(id)).toBe(false);
  });
});

describe('text', () => {
  it('truncates without splitting a surrogate pair', () => {
    expect(truncateText('ab😀c', 3)).toBe('ab');
    expect(truncateText('ab😀c', 4)).toBe('ab😀');
    expect(truncateText('abc', 5)).toBe('abc');
  });
});

describe('stripeEventProblem', () => {
  const event = { id: 'evt_1', object: 'event', type: 'invoice.paid', created: 1_700_000_000, livemode: false, data: { object: { id: 'in_1' } } };

  it('accepts an event', () => expect(stripeEventProblem(event)).toBeNull());

  it.each([
    ['null', null, /not an event object/],
    ['an array', [], /not an event object/],
    ['a lone surrogate in metadata', { ...event, data: { object: { id: 'in_1', metadata: { plan: 'pro\ud800' } } } }, /ill-formed Unicode at data\.object\.metadata\.plan/],
    ['a lone surrogate as id', { ...event, id: '\ud800' }, /ill-formed Unicode at id|`id`/],
    ['no type', { ...event, type: undefined }, /`type`/],
    ['created a string', { ...event, created: '1700000000' }, /`created`/],
    ['livemode a string', { ...event, livemode: 'false' }, /`livemode`/],
    ['data.object an array', { ...event, data: { object: [] } }, /`data.object`/],
  ])('refuses %s', (_, body, reason) => {
    expect(stripeEventProblem(body)).toMatch(reason);
  });
});
