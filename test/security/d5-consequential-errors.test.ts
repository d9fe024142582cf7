import { describe, expect, it } from 'vitest';
import { analyzeSpec, checkSpec } from '../../src/index.js';
import { run } from '../cli/run.js';
import { bankSchema } from './support.js';

/**
 * D5: truncated specs listed `error[missing-done] … 1:1` before the real error. After a
 * syntax error the parser dropped the broken item (perhaps the Done rule itself), so
 * whole-spec conclusions — a missing Done rule, an unknown objective — are not drawn.
 */
const tools = new URL('../../examples/bank-transfer/tools.json', import.meta.url).pathname;
const start = 'BankCheckBalance() -> Known\n';

const truncated: readonly (readonly [string, string, string])[] = [
  ['an unterminated string', `${start}Known & BankTransfer(to = "Alice`, 'unterminated-string'],
  ['an unterminated regex', `${start}Known & BankTransfer(to matches /Ali`, 'unterminated-regex'],
  ['a missing )', `${start}Known & BankTransfer(to = "Alice", amount = 500`, 'unexpected-token'],
  ['a rule without a head', `${start}Known & BankTransfer(to = "Alice") ->`, 'unexpected-token'],
  ['A -> B -> C', 'A -> B -> C', 'unexpected-token'],
  ['a 50,001-atom line', `${start}Known${' & Known'.repeat(50_000)} -> Done`, 'too-many-atoms'],
];

describe('D5: consequential errors come after their cause or not at all', () => {
  it.each(truncated)('%s: the real error only', (_, text, code) => {
    const codes = analyzeSpec(text, bankSchema()).map((diagnostic) => diagnostic.code);
    expect(codes).toEqual([code]);
    const checked = checkSpec(text, bankSchema());
    expect(checked.ok).toBe(false);
    expect(checked.diagnostics[0]?.code).toBe(code);
  });

  it('drops an unknown objective whose rule may be the one that did not parse', () => {
    // `Sent` is the head of line 3, which has a syntax error; line 1 uses it.
    const text =
      'Sent -> Done\nBankCheckBalance() -> Known\nKnown & BankTransfer(amount = 5 -> Sent';
    expect(analyzeSpec(text, bankSchema()).map((diagnostic) => diagnostic.code)).toEqual([
      'unexpected-token',
    ]);
  });

  it('keeps errors that do not depend on the rest of the spec', () => {
    const text = `${start}Known & BankTransfer(too = "Alice") -> Sent\nSent & BankTransfer(to = "A`;
    expect(analyzeSpec(text, bankSchema()).map((diagnostic) => diagnostic.code)).toEqual([
      'unknown-variable',
      'unterminated-string',
    ]);
  });

  it('still reports a missing Done rule when the syntax is right', () => {
    expect(analyzeSpec(`${start}Known -> Sent`, bankSchema()).map((item) => item.code)).toEqual([
      'missing-done',
    ]);
  });

  it('prints the real error first through the CLI', async () => {
    const result = await run(['check', 'cut.intent', '--tools', tools], {
      files: { 'cut.intent': `${start}Known & BankTransfer(to = "Alice` },
    });
    expect(result.code).toBe(1);
    expect(result.stdout.split('\n')[0]).toBe(
      'error[unterminated-string]: This string has no closing quote before the end of the line.',
    );
    expect(result.stdout).not.toContain('missing-done');
  });
});
