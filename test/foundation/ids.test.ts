/** ids/: one rule per identifier; the minted ids pass their own rule, and the rule's schema says the same as its pattern. */
import Ajv from 'ajv';
import * as ids from '../../functions/src/ids';
import type { IdRule } from '../../functions/src/ids/rule';
import { newKeyId } from '../../functions/src/keys/format';
import { newCustomerId } from '../../functions/src/customers/model';

const rules = (Object.entries(ids) as [string, unknown][]).filter((entry): entry is [string, IdRule] => typeof entry[1] === 'object' && entry[1] !== null && 'pattern' in entry[1]);

it('finds every rule', () => {
  expect(rules.map(([name]) => name).sort()).toEqual(
    ['ANONYMOUS_ID', 'APP_ACCOUNT_TOKEN', 'APP_ID', 'AUDIT_EVENT_ID', 'CONFLICT_ID', 'CUSTOMER_ID', 'ENTITLEMENT_KEY', 'DEVELOPER_USER_ID', 'ERROR_FINGERPRINT', 'KEY_ID', 'PROJECT_ID', 'RELEASE', 'WEBHOOK_ENDPOINT_ID', 'WEBHOOK_EVENT_ID'].sort(),
  );
});

it.each(rules)('%s: the JSON Schema admits exactly what the pattern admits', (_name, rule) => {
  const validate = new Ajv().compile(rule.schema);
  for (const value of [`${rule.prefix}abc`, `${rule.prefix}`, 'x/y', '.', '..', '__x__', `${rule.prefix}${'a'.repeat(300)}`, '0123456789abcdef0123456789abcdef']) {
    expect(validate(value)).toBe(rule.is(value));
  }
  expect(rule.is(42)).toBe(false);
});

it('minted ids pass their rules', () => {
  expect(ids.CUSTOMER_ID.is(newCustomerId())).toBe(true);
  expect(ids.KEY_ID.is(newKeyId())).toBe(true);
});

it('the customer id is the widest id-safe rule (spec: starts with `cdcust_`)', () => {
  expect(ids.CUSTOMER_ID.is(`cdcust_${'a'.repeat(128)}`)).toBe(true);
  expect(ids.CUSTOMER_ID.is('cdcust_a-b_c')).toBe(true);
  expect(ids.CUSTOMER_ID.is(`cdcust_${'a'.repeat(129)}`)).toBe(false);
  expect(ids.CUSTOMER_ID.is('cdcust_')).toBe(false);
  expect(ids.CUSTOMER_ID.is('cdcust_a/b')).toBe(false);
  expect(ids.CUSTOMER_ID.is('cus_abc')).toBe(false);
});

it('audit event ids exclude the document ids Firestore reserves', () => {
  for (const reserved of ['.', '..', '__x__']) expect(ids.AUDIT_EVENT_ID.is(reserved)).toBe(false);
  for (const ok of ['srv_revoke_abc', 'evt_1', '1a2b.c:d', '...']) expect(ids.AUDIT_EVENT_ID.is(ok)).toBe(true);
});
