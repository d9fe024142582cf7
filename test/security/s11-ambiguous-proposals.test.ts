import { describe, expect, it } from 'vitest';
import type { Verdict } from '../../src/index.js';
import { run } from '../cli/run.js';
import { balanceOf, bankSchema, checkBalance, exampleText, sessionFor } from './support.js';

/**
 * S11: a proposal the host or the tool could read another way than the engine is
 * `invalid-proposal` (FORMATS.md §2): unknown fields anywhere, `args` together with
 * `arguments`; and the CLI refuses trace lines with a key given twice (JSON.parse would
 * silently keep the last; hosts must parse with a duplicate-rejecting parser).
 */
const bankSpec = exampleText('bank-transfer/spec.intent');

function richSession() {
  const session = sessionFor(bankSpec, bankSchema());
  expect(session.propose(checkBalance).decision).toBe('allow');
  expect(session.observe(balanceOf(1500)).ok).toBe(true);
  return session;
}

function expectInvalid(verdict: Verdict, message: string): void {
  expect(verdict).toMatchObject({ decision: 'revise', severity: 'hard' });
  expect(verdict.reasons[0]?.code).toBe('invalid-proposal');
  expect(verdict.feedback).toContain(message);
}

describe('S11: ambiguous proposals are refused, not read one way', () => {
  it('refuses args together with arguments (the review got confirm for Alice/500)', () => {
    expectInvalid(
      richSession().propose({
        action: {
          name: 'BankTransfer',
          args: { to: 'Alice', amount: 500 },
          arguments: { to: 'Mallory', amount: 9000 },
        },
      }),
      'The action gives both "args" and "arguments"',
    );
  });

  it('takes either spelling alone', () => {
    for (const key of ['args', 'arguments']) {
      expect(
        richSession().propose({
          action: { name: 'BankTransfer', [key]: { to: 'Alice', amount: 500 } },
        }).decision,
      ).toBe('confirm');
    }
  });

  it('refuses unknown top-level fields and unknown fields of the action', () => {
    expectInvalid(
      richSession().propose({ action: { name: 'BankCheckBalance', args: {} }, bogus: 1 }),
      "A proposal has no field 'bogus'",
    );
    expectInvalid(
      richSession().propose({
        action: { name: 'BankTransfer', args: { to: 'Alice', amount: 500 }, to: 'Mallory' },
      }),
      `"action" has no field 'to'`,
    );
    expectInvalid(
      richSession().propose({
        action: { name: 'BankTransfer', args: { to: 'Alice', amount: 500, memo: 'x' } },
      }),
      "BankTransfer has no variable 'memo'",
    );
  });
});

describe('S11: duplicate keys in a trace line', () => {
  const trace = (line: string) =>
    [
      '{"propose": {"action": {"name": "BankCheckBalance", "args": {}}}}',
      '{"observe": {"updates": {"BankCheckBalanceResult": {"balance": 1500}}}}',
      line,
      '',
    ].join('\n');

  async function replay(line: string) {
    return run(
      [
        'replay',
        'examples/bank-transfer/spec.intent',
        '--tools',
        'examples/bank-transfer/tools.json',
        '--trace',
        'trace.jsonl',
        '--now',
        '2025-03-14T12:00',
      ],
      { files: { 'trace.jsonl': trace(line) } },
    );
  }

  it('refuses "amount": 900, "amount": 500 with the line and column of the second key', async () => {
    const line =
      '{"propose": {"action": {"name": "BankTransfer", "args": {"to": "Alice", "amount": 900, "amount": 500}}}}';
    const result = await replay(line);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `trace.jsonl:3:${line.lastIndexOf('"amount"') + 1}: the key "amount" is given twice in one object`,
    );
  });

  it('refuses a number the tool could read as another number', async () => {
    const result = await replay(
      '{"propose": {"action": {"name": "BankTransfer", "args": {"to": "Alice", "amount": 500.00000000000000001}}}}',
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'the number 500.00000000000000001 would be read as 500; write it as a string',
    );
  });

  it('replays the unambiguous line', async () => {
    const result = await replay(
      '{"propose": {"action": {"name": "BankTransfer", "args": {"to": "Alice", "amount": 500}}}}',
    );
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n').at(-1)).toContain('"decision":"confirm"');
  });
});
