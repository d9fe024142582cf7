import { describe, expect, it } from 'vitest';
import { defaultLimits } from '../../src/index.js';
import { run } from '../cli/run.js';
import {
  balanceOf,
  bankSchema,
  checkBalance,
  exampleText,
  restaurantSchema,
  sessionFor,
  transfer,
} from './support.js';

/**
 * D6: values have size limits and what is echoed is cut (LANGUAGE.md §6, session
 * life). A text value beyond `limits.maxValueLength` (proposals) or
 * `limits.maxObservedValueLength` (observations) is refused, not stored; an agent's
 * value echoed in a reason is cut to `limits.maxEchoLength`; a spec's malformed literal
 * is quoted short.
 */
const bankSpec = exampleText('bank-transfer/spec.intent');

describe('D6: proposal values are bounded', () => {
  it('answers a 50,000,000-character argument at once, with short feedback', () => {
    const session = sessionFor(bankSpec, bankSchema());
    const started = performance.now();
    const verdict = session.propose(transfer('x'.repeat(50_000_000), 500));
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(verdict).toMatchObject({ decision: 'revise', severity: 'hard' });
    expect(verdict.reasons[0]).toMatchObject({
      code: 'invalid-proposal',
      message: `BankTransfer.to: it has 50000000 characters; at most ${defaultLimits.maxValueLength} are accepted.`,
    });
    // Not quoted at all: reading any of it could copy all of it.
    expect(verdict.reasons[0]?.actual).toBeUndefined();
    expect(verdict.feedback.length).toBeLessThan(1_000);
  });

  it('keeps nothing of refused megabyte arguments', () => {
    const session = sessionFor(bankSpec, bankSchema());
    const megabyte = 'x'.repeat(1_000_000);
    globalThis.gc?.();
    const before = process.memoryUsage().heapUsed;
    for (let index = 0; index < 50; index++) {
      // A distinct concatenated string each time, as an agent would send.
      const verdict = session.propose(transfer(`${index}${megabyte}`, 'lots' as never));
      expect(verdict.reasons[0]?.code).toBe('invalid-proposal');
    }
    globalThis.gc?.();
    // 50 MB were proposed; what the session keeps (history, echoes) is a few kilobytes each.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(20_000_000);
  });

  it('refuses a 1 MB argument rather than storing it', () => {
    const session = sessionFor(bankSpec, bankSchema());
    const verdict = session.propose({
      updates: {},
      action: { name: 'BankTransfer', args: { to: 'a'.repeat(1_000_000), amount: 1 } },
    });
    expect(verdict.reasons[0]?.code).toBe('invalid-proposal');
    expect(session.status()).toMatchObject({ achieved: {}, proposals: 1 });
  });

  it('takes the limits of the session options', () => {
    const session = sessionFor(bankSpec, bankSchema(), { limits: { maxValueLength: 10 } });
    expect(session.propose(transfer('Alice', 500)).reasons[0]?.code).not.toBe('invalid-proposal');
    expect(session.propose(transfer('Alice-and-Bob', 500)).reasons[0]).toMatchObject({
      code: 'invalid-proposal',
      message: 'BankTransfer.to: it has 13 characters; at most 10 are accepted.',
    });
  });

  it('refuses an observed value beyond maxObservedValueLength, and accepts a long one below it', () => {
    const restaurant = sessionFor(
      'RestaurantInfo(name = "R") -> Named\nNamed -> Done\n',
      restaurantSchema(),
      { limits: { maxObservedValueLength: 1_000 } },
    );
    expect(
      restaurant.observe({ updates: { RestaurantInfo: { name: 'n'.repeat(1_001) } } }),
    ).toMatchObject({
      ok: false,
      problems: [
        { message: 'RestaurantInfo.name: it has 1001 characters; at most 1000 are accepted' },
      ],
    });
    expect(
      restaurant.observe({ updates: { RestaurantInfo: { name: 'n'.repeat(1_000) } } }).ok,
    ).toBe(true);
  });
});

describe('D6: echoed values are cut to maxEchoLength', () => {
  it('cuts the actual value of an unmet condition', () => {
    const session = sessionFor(bankSpec, bankSchema());
    expect(session.propose(checkBalance).decision).toBe('allow');
    expect(session.observe(balanceOf(1500)).ok).toBe(true);
    const verdict = session.propose(transfer('M'.repeat(50_000), 500));
    const reason = verdict.reasons.find((candidate) => candidate.variable === 'to');
    expect(reason).toMatchObject({ code: 'unmet-conditions' });
    expect(reason?.actual?.length).toBe(defaultLimits.maxEchoLength);
    expect(reason?.actual?.endsWith('…')).toBe(true);
    expect(verdict.feedback.length).toBeLessThan(2_000);
  });

  it('cuts the value of a soft deviation', () => {
    const session = sessionFor(exampleText('restaurant/spec.intent'), restaurantSchema(), {
      limits: { maxEchoLength: 40 },
    });
    const verdict = session.propose({ updates: { RestaurantInfo: { name: 'Q'.repeat(5_000) } } });
    expect(verdict).toMatchObject({ decision: 'revise', severity: 'soft' });
    expect(verdict.reasons[0]?.actual).toBe(`"${'Q'.repeat(38)}…`);
    expect(verdict.feedback.length).toBeLessThan(500);
  });

  it('quotes a 3.9 MB digit string in a spec in a few dozen characters', async () => {
    const digits = '9'.repeat(3_900_000);
    const result = await run(['check', '-', '--tools', 'examples/bank-transfer/tools.json'], {
      stdin: `BankTransfer(amount > ${digits}) -> Paid\nPaid -> Done\n`,
    });
    expect(result.code).toBe(1);
    const output = result.stdout + result.stderr;
    expect(output).toContain('error[invalid-number]');
    expect(output).toContain('A number may have at most 100 significant digits');
    expect(output.length).toBeLessThan(2_000);
  });
});
