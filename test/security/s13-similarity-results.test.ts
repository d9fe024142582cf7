import { describe, expect, it } from 'vitest';
import { bankSchema, sessionFor, transfer } from './support.js';

/**
 * S13 (similarity side): a custom similarity returning NaN, undefined, null or a
 * negative number silently disabled `~` reject guards (`allow`). Anything but a number
 * in [0, 1] is now an engine error, and the session fails closed: `reject`
 * (`internal-error`), with a message that says what the function returned.
 */
const guard = `reject BankTransfer(to ~ "Mallory")
BankTransfer(amount <= 100) -> Paid
Paid -> Done`;

const results: readonly (readonly [string, unknown])[] = [
  ['NaN', Number.NaN],
  ['undefined', undefined],
  ['null', null],
  ['-1', -1],
  ['2', 2],
  ['Infinity', Number.POSITIVE_INFINITY],
  ['a string', '0.9'],
];

describe('S13: a similarity that answers a non-number fails closed', () => {
  it.each(results)('rejects with internal-error when it returns %s', (_, result) => {
    const similarity = () => result as number;
    const session = sessionFor(guard, bankSchema(), { similarity });
    const verdict = session.propose(transfer('Mallory', 50));
    expect(verdict.decision).toBe('reject');
    expect(verdict.reasons[0]?.code).toBe('internal-error');
    expect(verdict.feedback).toContain('must return a number in [0, 1]');
    // The session stays usable; an action no `~` constraint looks at is decided as usual.
    expect(session.propose({ action: { name: 'BankCheckBalance', args: {} } }).decision).toBe(
      'allow',
    );
  });

  it('never allows through a `~` rule either', () => {
    const rule = 'BankTransfer(to ~ "Alice", amount <= 100) -> Paid\nPaid -> Done';
    const session = sessionFor(rule, bankSchema(), { similarity: () => Number.NaN });
    const verdict = session.propose(transfer('Alice', 50));
    expect(verdict.decision).toBe('reject');
    expect(verdict.reasons[0]?.code).toBe('internal-error');
  });

  it('uses a similarity in [0, 1] as before', () => {
    const session = sessionFor(guard, bankSchema(), { similarity: () => 0.2 });
    expect(session.propose(transfer('Mallory', 50)).decision).toBe('allow');
    const firing = sessionFor(guard, bankSchema(), { similarity: () => 1 });
    expect(firing.propose(transfer('Alice', 50)).decision).toBe('reject');
  });
});
