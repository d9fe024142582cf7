import { describe, expect, it } from 'vitest';
import { checkSpec, createSession, loadToolSchema, type Schema } from '../../src/index.js';
import { run } from '../cli/run.js';
import {
  balanceOf,
  bankSchema,
  checkBalance,
  exampleText,
  fixedNow,
  sessionFor,
  specFor,
} from './support.js';

/**
 * S10 and D15: numbers are exact decimals in specs and proposals (LANGUAGE.md §5.1). A
 * 19-digit id equals only itself, `500.00000000000000001` is above 500, `fmt` never
 * rewrites a literal's value, and a number beyond the double range or too close to zero
 * is a spec error (`invalid-number`) or an `invalid-proposal` — never ±Infinity or 0.
 */
const twitterTools = JSON.stringify({
  tools: [
    {
      name: 'DeleteTweet',
      description: 'Deletes one tweet.',
      inputSchema: {
        type: 'object',
        properties: { id: { type: 'number' } },
        required: ['id'],
      },
      annotations: { destructiveHint: true },
    },
  ],
});

function twitterSchema(): Schema {
  const loaded = loadToolSchema(twitterTools);
  if (!loaded.ok) throw new Error('the tools do not load');
  return loaded.value;
}

const deleteSpec = 'DeleteTweet(id = 1234567890123456789) -> Deleted\nDeleted -> Done\n';

function deleteTweet(id: unknown) {
  return { action: { name: 'DeleteTweet', args: { id } } };
}

describe('S10: a 64-bit id equals only itself', () => {
  it('refuses the neighbouring ids the review got allowed, and allows the id itself', () => {
    const checked = checkSpec(deleteSpec, twitterSchema());
    expect(checked.diagnostics).toEqual([]);
    for (const other of ['1234567890123456700', '1234567890123456800', '1234567890123456833']) {
      const session = sessionFor(deleteSpec, twitterSchema());
      const verdict = session.propose(deleteTweet(other));
      expect(verdict).toMatchObject({ decision: 'revise', severity: 'hard' });
      expect(verdict.reasons[0]).toMatchObject({
        code: 'unmet-conditions',
        expected: '= 1234567890123456789',
        actual: other,
      });
    }
    // A JS number is the decimal it prints as (what JSON.stringify sends): …800, not the id.
    expect(
      sessionFor(deleteSpec, twitterSchema()).propose(deleteTweet(Number('1234567890123456789')))
        .decision,
    ).toBe('revise');
    expect(
      sessionFor(deleteSpec, twitterSchema()).propose(deleteTweet('1234567890123456789')).decision,
    ).toBe('allow');
  });

  it('fmt prints the literal as written, and the printed spec means the same', async () => {
    const result = await run(['fmt', '-'], { stdin: deleteSpec });
    expect(result).toMatchObject({ code: 0, stdout: deleteSpec });
    const grouped = await run(['fmt', '-'], {
      stdin: 'DeleteTweet(id = 1_234_567_890_123_456_789) -> Deleted\nDeleted -> Done\n',
    });
    expect(grouped.stdout).toBe(deleteSpec);
  });

  it('keeps a guard on a long id exact too', () => {
    const spec = `reject DeleteTweet(id = 1234567890123456789) because "pinned"\nDeleteTweet() -> Deleted\nDeleted -> Done\n`;
    expect(
      sessionFor(spec, twitterSchema()).propose(deleteTweet('1234567890123456789')),
    ).toMatchObject({
      decision: 'reject',
      reasons: [{ code: 'guard-reject' }],
    });
    expect(
      sessionFor(spec, twitterSchema()).propose(deleteTweet('1234567890123456788')).decision,
    ).toBe('allow');
  });
});

describe('S10: decimals do not round into a bound', () => {
  const bankSpec = exampleText('bank-transfer/spec.intent');

  function richSession() {
    const session = sessionFor(bankSpec, bankSchema());
    expect(session.propose(checkBalance).decision).toBe('allow');
    expect(session.observe(balanceOf(1500)).ok).toBe(true);
    return session;
  }

  it('fires reject amount > 500 for 500.00000000000000001', () => {
    const verdict = richSession().propose({
      action: { name: 'BankTransfer', args: { to: 'Alice', amount: '500.00000000000000001' } },
    });
    expect(verdict).toMatchObject({ decision: 'reject', reasons: [{ code: 'guard-reject' }] });
  });

  it('does not satisfy amount <= 500 with 500.00000000000000001', () => {
    const spec = 'BankTransfer(to = "Alice", amount <= 500) -> Paid\nPaid -> Done\n';
    const verdict = sessionFor(spec, bankSchema()).propose({
      action: { name: 'BankTransfer', args: { to: 'Alice', amount: '500.00000000000000001' } },
    });
    expect(verdict).toMatchObject({
      decision: 'revise',
      severity: 'hard',
      reasons: [{ code: 'unmet-conditions', actual: '500.00000000000000001' }],
    });
  });

  it('refuses non-finite and out-of-range amounts instead of reading them as ±Infinity', () => {
    const spec = 'BankTransfer(to = "Alice", amount <= 500) -> Paid\nPaid -> Done\n';
    for (const amount of ['-1e400', '1e400', '1e-400', Number.NEGATIVE_INFINITY, Number.NaN]) {
      const verdict = sessionFor(spec, bankSchema()).propose({
        action: { name: 'BankTransfer', args: { to: 'Alice', amount } },
      });
      expect(verdict).toMatchObject({ decision: 'revise', severity: 'hard' });
      expect(verdict.reasons[0]?.code).toBe('invalid-proposal');
    }
    const verdict = sessionFor(spec, bankSchema()).propose({
      action: { name: 'BankTransfer', args: { to: 'Alice', amount: '-1e400' } },
    });
    expect(verdict.feedback).toContain('"-1e400" is beyond the range of numbers');
  });
});

describe('D15: literals that overflow or underflow are spec errors', () => {
  it.each([
    ['1e400', 'The number is too large'],
    ['-1e400', 'The number is too large'],
    ['1e-400', 'The number is too close to zero to be represented'],
  ])('reports %s as invalid-number, located, with a hint', (literal, hint) => {
    const text = `BankTransfer(to = "Alice", amount > ${literal}) -> Paid\nPaid -> Done\n`;
    const checked = checkSpec(text, bankSchema());
    expect(checked.ok).toBe(false);
    const [diagnostic] = checked.diagnostics;
    expect(diagnostic).toMatchObject({ code: 'invalid-number', severity: 'error' });
    const offset = text.indexOf(literal);
    expect(diagnostic?.range?.start).toEqual({ line: 1, column: offset + 1, offset });
    expect(diagnostic?.range?.end.offset).toBe(offset + literal.length);
    expect(diagnostic?.hint).toContain(hint);
  });

  it('does not let fmt print 1e-400 as 0', async () => {
    const result = await run(['fmt', '-'], {
      stdin: 'BankTransfer(amount > 1e-400) -> Paid\nPaid -> Done\n',
    });
    expect(result.code).not.toBe(0);
    expect(result.stdout).not.toContain('amount > 0');
    expect(result.stderr).toContain('invalid-number');
  });

  it('keeps the interval check sound on long literals: no contradiction that is not one', () => {
    const text =
      'BankTransfer(amount > 1234567890123456789, amount < 1234567890123456790) -> Paid\nPaid -> Done\n';
    expect(checkSpec(text, bankSchema()).diagnostics).toEqual([]);
    const contradictory =
      'BankTransfer(amount > 500.00000000000000001, amount < 500.000000000000000005) -> Paid\nPaid -> Done\n';
    expect(checkSpec(contradictory, bankSchema()).diagnostics.map((d) => d.code)).toContain(
      'contradictory-constraints',
    );
    const session = createSession(specFor(text, bankSchema()), { now: fixedNow });
    expect(
      session.propose({
        action: { name: 'BankTransfer', args: { to: 'A', amount: '1234567890123456789.5' } },
      }).decision,
    ).toBe('allow');
  });
});
