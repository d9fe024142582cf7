import { describe, expect, it } from 'vitest';
import { checkSpec } from './checker/check.js';
import type { Spec } from './checker/spec.js';
import { meaningKey } from './meaning-key.js';
import { unwrap } from './result.js';
import { createSchema, type PredicateDeclaration } from './schema-model.js';

const send: PredicateDeclaration = {
  name: 'SendSMS',
  kind: 'action',
  description: 'Send a text message.',
  keys: [],
  critical: true,
  variables: [
    { name: 'to', type: { kind: 'text' } },
    { name: 'body', type: { kind: 'text' } },
  ],
};
const contact: PredicateDeclaration = {
  name: 'Contact',
  kind: 'state',
  description: 'A contact.',
  keys: [],
  critical: false,
  variables: [
    { name: 'name', type: { kind: 'text' } },
    { name: 'blocked', type: { kind: 'boolean' } },
  ],
};
const schema = createSchema('sms', [send, contact]);
const spec = (text: string): Spec => unwrap(checkSpec(text, schema));
const key = (text: string): string => meaningKey(spec(text));

describe('meaningKey', () => {
  it('is the same for specs that differ in labels, rule order, atom order and spelling', () => {
    const a = key(
      'Contact(name = "Ann") & SendSMS(to = "Ann", body ~ "hello") -> Sent\nSent -> Done',
    );
    expect(
      key(
        'Done: Sent() -> Done\nGreet: SendSMS(body ~ "hello", to = "ann ") & Contact(name = "Ann") -> Sent',
      ),
    ).toBe(a);
  });

  it.each([
    [
      'a not atom',
      'not Contact(blocked = true) & SendSMS(to = "Ann") -> Sent',
      'SendSMS(to = "Ann") -> Sent',
    ],
    ['absent(arg)', 'SendSMS(to = "Ann", absent(body)) -> Sent', 'SendSMS(to = "Ann") -> Sent'],
    ['a per-value budget', '@repeat(per: to)\nSendSMS() -> Sent', '@repeat\nSendSMS() -> Sent'],
  ])('tells a spec with %s from the same spec without it', (_, withIt, without) => {
    expect(key(`${withIt}\nSent -> Done`)).not.toBe(key(`${without}\nSent -> Done`));
  });

  it('keeps the alternatives of one rule, which share a budget, apart from separate rules', () => {
    const alternatives = key('(SendSMS(to = "Ann") | SendSMS(to = "Bob")) -> Sent\nSent -> Done');
    const separate = key('SendSMS(to = "Ann") -> Sent\nSendSMS(to = "Bob") -> Sent\nSent -> Done');
    expect(alternatives).not.toBe(separate);
    expect(key('(SendSMS(to = "Bob") | SendSMS(to = "Ann")) -> Sent\nSent -> Done')).toBe(
      alternatives,
    );
  });
});
