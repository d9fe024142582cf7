import { describe, expect, it } from 'vitest';
import { createSession, explainSpec } from '../../src/engine/index.js';
import { checkSpec, parse, print } from '../../src/language/index.js';
import { action, fixedNow, schemaOf, specOf, state, tool } from './fixtures.js';

/** LANGUAGE.md §7: negation, absence, disjunction and per-value repetition. */

const mail = schemaOf(
  tool('SearchContacts', { name: 'text' }, { email: 'text', count: 'number' }),
  action('SendEmail', { to: 'text', subject: 'text', cc: 'text' }, { critical: true }),
  action('SendSms', { phone_number: 'text', text: 'text' }, { critical: true }),
  state('Blocked', { address: 'text' }, { keys: ['address'] }),
);

describe('not Obj', () => {
  it('holds until the objective is achieved, and its refusal says so', () => {
    const spec = specOf(
      [
        'not Sent & SendEmail(to = "a@x.org") -> Sent',
        'SendSms(phone_number = "1") & not Sent -> Texted',
        'Sent -> Done',
        'Texted -> Done',
      ].join('\n'),
      mail,
    );
    const session = createSession(spec, { now: fixedNow });
    expect(
      session.propose({ action: { name: 'SendSms', args: { phone_number: '1', text: 'hi' } } })
        .decision,
    ).toBe('allow');
    const session2 = createSession(spec, { now: fixedNow });
    expect(
      session2.propose({ action: { name: 'SendEmail', args: { to: 'a@x.org' } } }).decision,
    ).toBe('allow');
    const refused = session2.propose({
      action: { name: 'SendSms', args: { phone_number: '1', text: 'hi' } },
    });
    expect(refused.decision).toBe('revise');
    expect(refused.reasons[0]).toMatchObject({
      code: 'unmet-conditions',
      objective: 'Sent',
      expected: 'not achieved',
      actual: '1',
    });
    expect(refused.feedback).toContain('Sent must not have been achieved; it has been (1 time).');
  });

  it('is no cycle: not X -> X fires once', () => {
    const result = checkSpec('not Sent & SendEmail(to = "a") -> Sent\nSent -> Done', mail);
    expect(result.ok).toBe(true);
  });
});

describe('not P(constraints)', () => {
  const spec = specOf(
    'SendEmail(to = "a@x.org") & not Blocked(address = "a@x.org") -> Sent\nSent -> Done',
    mail,
  );

  it('fires while no instance satisfies the pattern, and not once one does', () => {
    const session = createSession(spec, { now: fixedNow });
    session.observe({
      updates: [{ predicate: 'Blocked', op: 'add', values: { address: 'b@x.org' } }],
    });
    const call = { action: { name: 'SendEmail', args: { to: 'a@x.org' } } };
    const blocked = createSession(spec, { now: fixedNow });
    blocked.observe({
      updates: [{ predicate: 'Blocked', op: 'add', values: { address: 'A@X.org' } }],
    });
    const verdict = blocked.propose(call);
    expect(verdict.decision).toBe('revise');
    expect(verdict.reasons[0]).toMatchObject({ code: 'unmet-conditions', predicate: 'Blocked' });
    expect(verdict.feedback).toContain('There must be no Blocked with address equal to "a@x.org"');
    expect(session.propose(call).decision).toBe('allow');
  });

  it('keeps Done incremental: a negated Done pattern is re-judged when its predicate changes', () => {
    const doneSpec = specOf(
      'SendEmail(to = "a") -> Sent\nSent & not Blocked(address = "a") -> Done',
      mail,
    );
    const session = createSession(doneSpec, { now: fixedNow });
    expect(session.propose({ action: { name: 'SendEmail', args: { to: 'a' } } }).decision).toBe(
      'allow',
    );
    expect(session.status().done).toBe(true);
    session.observe({ updates: [{ predicate: 'Blocked', op: 'add', values: { address: 'a' } }] });
    expect(session.status().done).toBe(false);
    expect(session.propose({ finish: true }).decision).toBe('revise');
  });

  it('is refused on an action with a located error', () => {
    const result = checkSpec('not SendSms(text = "x") & SendEmail(to = "a") -> S\nS -> Done', mail);
    expect(result.ok).toBe(false);
    expect(result.diagnostics.map((diagnostic) => diagnostic.code)).toContain('negated-action');
  });
});

describe('absent(arg)', () => {
  const spec = specOf(
    'SendEmail(to = "a@x.org", absent(cc)) -> Sent\nSent -> Done\nreject SendEmail(absent(subject)) because "always give a subject"',
    mail,
  );

  it('holds only when the argument is not given', () => {
    const session = createSession(spec, { now: fixedNow });
    const withCc = session.propose({
      action: { name: 'SendEmail', args: { to: 'a@x.org', subject: 's', cc: 'boss@x.org' } },
    });
    expect(withCc.decision).toBe('revise');
    expect(withCc.reasons[0]).toMatchObject({ variable: 'cc', expected: 'absent' });
    expect(withCc.feedback).toContain(
      'SendEmail must be called without cc; it is given as "boss@x.org".',
    );
    expect(
      session.propose({ action: { name: 'SendEmail', args: { to: 'a@x.org', subject: 's' } } })
        .decision,
    ).toBe('allow');
  });

  it('in a guard, matches a call that leaves the argument out', () => {
    const session = createSession(spec, { now: fixedNow });
    const verdict = session.propose({ action: { name: 'SendEmail', args: { to: 'a@x.org' } } });
    expect(verdict.decision).toBe('reject');
    expect(verdict.reasons[0]?.code).toBe('guard-reject');
  });

  it('an empty text is given, not absent: an agent cannot pass an absent(cc) rule with cc = ""', () => {
    const session = createSession(spec, { now: fixedNow });
    expect(
      session.propose({
        action: { name: 'SendEmail', args: { to: 'a@x.org', subject: 's', cc: '' } },
      }).decision,
    ).toBe('revise');
  });

  it('explain says "without"', () => {
    const text = JSON.stringify(explainSpec(spec));
    expect(text).toContain('without cc');
  });
});

describe('(A | B) & C', () => {
  const text = [
    '(SearchContactsResult(email = "a@x.org") | Blocked(address = "vip")) & SendEmail(to = "a@x.org") -> Sent',
    'Sent -> Done',
  ].join('\n');

  it('stands for one rule per alternative, labelled R1a, R1b; the printer keeps the source form', () => {
    const spec = specOf(text, mail);
    expect(spec.rules.map((rule) => rule.id)).toEqual(['R1a', 'R1b', 'R2']);
    expect(print(parse(text).value!.ast)).toBe(`${text}\n`);
  });

  it('fires by either alternative; feedback names the closest one', () => {
    const spec = specOf(text, mail);
    const first = createSession(spec, { now: fixedNow });
    first.observe({ updates: { SearchContactsResult: { email: 'a@x.org', count: 1 } } });
    expect(first.propose({ action: { name: 'SendEmail', args: { to: 'a@x.org' } } }).decision).toBe(
      'allow',
    );
    const second = createSession(spec, { now: fixedNow });
    second.observe({ updates: [{ predicate: 'Blocked', op: 'add', values: { address: 'vip' } }] });
    expect(
      second.propose({ action: { name: 'SendEmail', args: { to: 'a@x.org' } } }).decision,
    ).toBe('allow');
    const neither = createSession(spec, { now: fixedNow });
    neither.observe({ updates: { SearchContactsResult: { email: 'b@x.org', count: 1 } } });
    const refused = neither.propose({ action: { name: 'SendEmail', args: { to: 'a@x.org' } } });
    expect(refused.decision).toBe('revise');
    expect(refused.reasons[0]).toMatchObject({
      rule: 'R1a',
      variable: 'email',
      actual: '"b@x.org"',
    });
    expect(refused.feedback).toContain('rule R1a');
  });

  it('an objective achieved by one alternative is achieved: the other does not repeat it', () => {
    const spec = specOf(text, mail);
    const session = createSession(spec, { now: fixedNow });
    session.observe({ updates: { SearchContactsResult: { email: 'a@x.org', count: 1 } } });
    session.observe({ updates: [{ predicate: 'Blocked', op: 'add', values: { address: 'vip' } }] });
    const call = { action: { name: 'SendEmail', args: { to: 'a@x.org' } } };
    expect(session.propose(call).decision).toBe('allow');
    expect(session.propose(call).reasons[0]?.code).toBe('already-achieved');
  });

  it('a | outside parentheses is a located syntax error', () => {
    const result = checkSpec('SendEmail(to = "a") | SendSms(text = "b") -> S\nS -> Done', mail);
    expect(result.ok).toBe(false);
    expect(result.diagnostics[0]).toMatchObject({ code: 'disjunction-outside-parentheses' });
    expect(result.diagnostics[0]?.range?.start).toMatchObject({ line: 1, column: 21 });
  });

  it('bounds the rules one disjunctive rule stands for', () => {
    const atoms = Array.from(
      { length: 7 },
      () => '(Blocked(address = "a") | Blocked(address = "b"))',
    );
    const result = checkSpec(`${atoms.join(' & ')} & SendEmail(to = "a") -> S\nS -> Done`, mail);
    expect(result.ok).toBe(false);
    expect(result.diagnostics.map((diagnostic) => diagnostic.code)).toContain(
      'too-many-alternatives',
    );
  });

  it('a disjunction that starts the line after a head is the next rule', () => {
    const source =
      'S -> Done()\n(Blocked(address = "a") | Blocked(address = "b")) & SendSms(text = "x") -> S';
    const spec = specOf(source, mail);
    expect(spec.rules.map((rule) => rule.id)).toEqual(['R1', 'R2a', 'R2b']);
  });

  it('annotations before a disjunction on the same line still read as annotations', () => {
    const spec = specOf(
      '@confirm("sure?") (Blocked(address = "a") | Blocked(address = "b")) & SendEmail(to = "a") -> S\nS -> Done',
      mail,
    );
    expect(spec.rules.map((rule) => [rule.id, rule.confirm?.message])).toEqual([
      ['R1a', 'sure?'],
      ['R1b', 'sure?'],
      ['R2', undefined],
    ]);
  });
});

describe('@repeat(per: arg)', () => {
  it('allows one call per distinct value, and names the value when refusing', () => {
    const spec = specOf(
      '@repeat(per: phone_number)\nSendSms(text contains "meeting") -> Notified\nNotified -> Done',
      mail,
    );
    const session = createSession(spec, { now: fixedNow });
    const sms = (phone: string) => ({
      action: { name: 'SendSms', args: { phone_number: phone, text: 'The meeting moved' } },
    });
    expect(session.propose(sms('+1 555 0100')).decision).toBe('allow');
    expect(session.propose(sms('+1 555 0101')).decision).toBe('allow');
    const again = session.propose(sms('+1 555 0100'));
    expect(again.decision).toBe('revise');
    expect(again.reasons[0]).toMatchObject({ code: 'already-achieved', objective: 'Notified' });
    expect(again.reasons[0]?.message).toContain('phone_number = "+1 555 0100"');
    // Values are compared normalized: case and spacing do not make a new recipient.
    expect(session.propose(sms(' +1  555 0100 ')).decision).toBe('revise');
    expect(session.status().achieved).toEqual({ Notified: 2 });
  });

  it('with a bound, allows that many calls per value', () => {
    const spec = specOf(
      '@repeat(2, per: to)\nSendEmail(subject = "reminder") -> Reminded\nReminded -> Done',
      mail,
    );
    const session = createSession(spec, { now: fixedNow });
    const mailTo = (to: string) => ({
      action: { name: 'SendEmail', args: { to, subject: 'reminder' } },
    });
    expect(session.propose(mailTo('a')).decision).toBe('allow');
    expect(session.propose(mailTo('a')).decision).toBe('allow');
    expect(session.propose(mailTo('a')).decision).toBe('revise');
    expect(session.propose(mailTo('b')).decision).toBe('allow');
  });

  it('rollback gives the value its budget back', () => {
    const spec = specOf('@repeat(per: to)\nSendEmail(subject = "x") -> Sent\nSent -> Done', mail);
    const session = createSession(spec, { now: fixedNow, rollback: true });
    const call = { action: { name: 'SendEmail', args: { to: 'a', subject: 'x' } } };
    expect(session.propose(call).decision).toBe('allow');
    expect(session.rollback(session.lastCommit()!)).toBe(true);
    expect(session.propose(call).decision).toBe('allow');
  });

  it('needs an action with that argument', () => {
    const result = checkSpec('@repeat(per: phone)\nSendSms(text = "x") -> S\nS -> Done', mail);
    expect(result.ok).toBe(false);
    expect(result.diagnostics[0]).toMatchObject({ code: 'repeat-per-without-action' });
    expect(result.diagnostics[0]?.hint).toContain('phone_number');
  });

  it('prints back in canonical form', () => {
    const text = '@repeat(3, per: to)\nSendEmail(subject = "x") -> Sent\nSent -> Done\n';
    expect(
      print(parse('@REPEAT(3,per:to) SendEmail(subject = "x") -> Sent\nSent -> Done').value!.ast),
    ).toBe(text);
  });
});
