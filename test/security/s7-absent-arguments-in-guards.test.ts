import { describe, expect, it } from 'vitest';
import { createSession } from '../../src/index.js';
import { action, fixedNow, schemaOf, specOf, state } from '../engine/fixtures.js';
import { guardedSpec, sendEmail, sendMoney } from './text-tools.js';

/**
 * S7 (guard side): a negative guard was bypassed by leaving the argument out or
 * sending `null` (`reject SendMoney(from_account != "checking")`: the tool then used
 * its default account). In a guard, a negative constraint on an absent optional
 * argument now holds (LANGUAGE.md §5.1); in a rule it stays false. An absent optional
 * list argument is the empty list. (Required arguments: s7-required-arguments.)
 */
const negativeGuards = [
  'reject SendMoney(from_account != "checking")',
  'reject SendMoney(from_account not in ["checking", "savings"])',
  'reject SendMoney(memo not contains "invoice")',
  'reject SendMoney(memo not matches /^invoice \\d+$/)',
  'reject SendMoney(memo !~ "rent")',
];

describe('S7: negative guards hold on an absent optional argument', () => {
  it.each(negativeGuards)('%s fires when the argument is omitted or null', (guard) => {
    const spec = guardedSpec(guard);
    expect(sendMoney(spec, { to: 'Alice' }).decision).toBe('reject');
    expect(sendMoney(spec, { to: 'Alice', from_account: null, memo: null }).decision).toBe(
      'reject',
    );
  });

  it('lets a value that satisfies the negative guard through', () => {
    const spec = guardedSpec('reject SendMoney(from_account != "checking")');
    expect(sendMoney(spec, { to: 'Alice', from_account: 'checking' }).decision).toBe('allow');
    expect(sendMoney(spec, { to: 'Alice', from_account: 'savings' }).decision).toBe('reject');
  });

  it('does not fire a positive guard on an absent argument', () => {
    const spec = guardedSpec('reject SendMoney(from_account = "savings")');
    expect(sendMoney(spec, { to: 'Alice' }).decision).toBe('allow');
    expect(sendMoney(spec, { to: 'Alice', from_account: 'Savings' }).decision).toBe('reject');
  });

  it('keeps rules strict: a constraint on an absent argument is false', () => {
    const rule = 'SendMoney(from_account != "savings") -> Paid\nPaid -> Done';
    expect(sendMoney(rule, { to: 'Alice' })).toMatchObject({
      decision: 'revise',
      severity: 'hard',
    });
    expect(sendMoney(rule, { to: 'Alice', from_account: 'checking' }).decision).toBe('allow');
  });

  it('reads an absent optional list argument as the empty list, in guards and rules', () => {
    const to = 'alice@company.com';
    expect(
      sendEmail(guardedSpec('reject GmailSendEmail(cc contains "evil@x.com")'), { to }).decision,
    ).toBe('allow');
    expect(
      sendEmail(guardedSpec('reject GmailSendEmail(cc not contains "boss@corp.com")'), { to })
        .decision,
    ).toBe('reject');
    expect(sendEmail(guardedSpec('reject GmailSendEmail(cc != [])'), { to }).decision).toBe(
      'allow',
    );
    expect(
      sendEmail(guardedSpec('reject GmailSendEmail(cc != [])'), { to, cc: ['x@y.z'] }).decision,
    ).toBe('reject');
    const rule = 'GmailSendEmail(cc = []) -> Mailed\nMailed -> Done';
    expect(sendEmail(rule, { to }).decision).toBe('allow');
    expect(sendEmail(rule, { to, cc: null }).decision).toBe('allow');
  });

  it('does not apply to guards on state: an unobserved variable is not an omitted argument', () => {
    const schema = schemaOf(state('Form', { name: 'text', size: 'number' }), action('Submit'));
    const spec = specOf('reject Form(name != "R")\nSubmit() -> Sent\nSent -> Done', schema);
    const session = createSession(spec, { now: fixedNow });
    expect(session.propose({ updates: { Form: { size: 2 } } }).decision).toBe('allow');
    expect(session.propose({ updates: { Form: { name: 'Q' } } }).decision).toBe('reject');
  });
});
