import { describe, expect, it } from 'vitest';
import { guardedSpec, sendEmail } from './text-tools.js';

/**
 * S5: `matches` and `contains` saw the raw, case-sensitive text, so the documented guard
 * `confirm GmailSendEmail(to matches /@external\.com$/)` let every other spelling of an
 * external address through. All text operators now see the normalized text
 * (NFKC_Casefold, invisible characters removed, whitespace collapsed), and guards also
 * test the parts of a value a mail tool reads as separate recipients.
 */
const external = [
  'bob@external.com',
  ' bob@external.com',
  'bob@EXTERNAL.com',
  'bob@External.Com',
  'bob@external.com ',
  'bob@external.com.',
  'bob@external.com\n',
  'Bob <bob@external.com>',
  'bob@external.com, alice@company.com',
  'bob@external.com;alice@company.com',
  'bob@external.com\u0000',
];

describe('S5: the documented external-mail guard cannot be walked around', () => {
  it.each(external)('reject … (to matches /@external\\.com$/) fires for %j', (to) => {
    const spec = guardedSpec('reject GmailSendEmail(to matches /@external\\.com$/)');
    expect(sendEmail(spec, { to }).decision).toBe('reject');
  });

  it.each(external)('confirm … (to matches /@external\\.com$/) asks for %j', (to) => {
    const spec = guardedSpec(
      'confirm GmailSendEmail(to matches /@external\\.com$/) because "mail leaves the company"',
    );
    const verdict = sendEmail(spec, { to });
    expect(verdict.decision).toBe('confirm');
    expect(verdict.reasons[0]?.code).toBe('guard-confirm');
  });

  it('lets mail inside the company through', () => {
    const spec = guardedSpec('reject GmailSendEmail(to matches /@external\\.com$/)');
    expect(sendEmail(spec, { to: 'alice@company.com' }).decision).toBe('allow');
    expect(sendEmail(spec, { to: 'alice@external.company.com' }).decision).toBe('allow');
  });

  it.each(['x@evil.com', 'x@EVIL.com', 'x@evil.COM', 'x@ｅｖｉｌ.com', 'x@evil。com'])(
    'reject … (to contains "@evil.com") fires for %j',
    (to) => {
      const spec = guardedSpec('reject GmailSendEmail(to contains "@evil.com")');
      expect(sendEmail(spec, { to }).decision).toBe('reject');
    },
  );

  it.each([
    'my password is hunter2',
    'my Password is hunter2',
    'my PASSWORD is hunter2',
    'my pass\u200bword is hunter2',
    'my p\u0430ssword is hunter2',
  ])('reject … (body contains "password") fires for %j', (body) => {
    const spec = guardedSpec('reject GmailSendEmail(body contains "password")');
    expect(sendEmail(spec, { to: 'alice@company.com', body }).decision).toBe('reject');
  });

  it('keeps allow-lists strict: a rule matches the whole normalized value only', () => {
    const spec = [
      'GmailSendEmail(to matches /^[a-z]+@company\\.com$/) -> Mailed',
      'Mailed -> Done',
    ].join('\n');
    expect(sendEmail(spec, { to: 'Alice@Company.com ' }).decision).toBe('allow');
    for (const to of [
      'alice@company.com, bob@external.com',
      'Bob <alice@company.com>',
      '\u0430lice@company.com',
    ]) {
      expect(sendEmail(spec, { to })).toMatchObject({ decision: 'revise', severity: 'hard' });
    }
  });
});
