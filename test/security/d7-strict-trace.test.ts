import { describe, expect, it } from 'vitest';
import { run } from '../cli/run.js';

/**
 * D7: `replay --check` passed vacuously. Misspelt keys (`"expected"`, `"Expect"`) were
 * ignored (`0 passed, 0 failed`, exit 0 although the transfer was rejected), a line with
 * both `propose` and `observe` dropped the observation, and a refused observation was
 * not counted as a failure.
 */
const examples = new URL('../../examples/bank-transfer/', import.meta.url).pathname;
const transfer900 = { action: { name: 'BankTransfer', args: { to: 'Alice', amount: 900 } } };
const checkBalance = { action: { name: 'BankCheckBalance', args: {} } };

function replay(...lines: unknown[]) {
  const trace = `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
  return run(
    [
      'replay',
      `${examples}spec.intent`,
      '--tools',
      `${examples}tools.json`,
      '--trace',
      'trace.jsonl',
      '--check',
    ],
    { files: { 'trace.jsonl': trace } },
  );
}

describe('D7: replay --check cannot pass vacuously', () => {
  it.each(['expected', 'Expect', 'expcet'])('refuses the misspelt key "%s"', async (key) => {
    const result = await replay({ propose: transfer900, [key]: 'allow' });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `intentguard: trace.jsonl:1: unknown key "${key}" in a "propose" line (did you mean "expect"?); known keys: propose, expect, id\n`,
    );
  });

  it('refuses misspelt keys inside expect and resolve', async () => {
    const expectTypo = await replay({ propose: transfer900, expect: { decison: 'allow' } });
    expect(expectTypo.code).toBe(2);
    expect(expectTypo.stderr).toContain(
      'unknown key "decison" in "expect" (did you mean "decision"?)',
    );
    const resolveTypo = await replay({ resolve: { approved: true, aproved: false } });
    expect(resolveTypo.code).toBe(2);
    expect(resolveTypo.stderr).toContain('unknown key "aproved" in "resolve"');
  });

  it('refuses a line with two events', async () => {
    const result = await replay({
      propose: checkBalance,
      observe: { updates: { BankCheckBalanceResult: { balance: 1500 } } },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'intentguard: trace.jsonl:1: a line holds one event, but this one has "propose" and "observe"\n',
    );
  });

  it('suggests the event key for a line without one', async () => {
    const result = await replay({ Propose: checkBalance });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('found "Propose" (did you mean "propose"?)');
  });

  it('counts a refused observation as a failure', async () => {
    const result = await replay(
      { propose: checkBalance, expect: 'allow' },
      { observe: { updates: { BankCheckBalanceResult: { balance: 'lots' } } } },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^trace\.jsonl:2: the observation was refused: .*balance/m);
    expect(result.stderr).toContain('1 passed, 1 failed');
  });

  it('passes a refused observation the line expects with {"ok": false}, and fails an applied one', async () => {
    const refused = await replay(
      { propose: checkBalance, expect: 'allow' },
      {
        observe: { updates: { BankCheckBalanceResult: { balance: 'lots' } } },
        expect: { ok: false },
      },
    );
    expect(refused.stderr).toBe('2 passed, 0 failed\n');
    expect(refused.code).toBe(0);
    const applied = await replay(
      { propose: checkBalance, expect: 'allow' },
      {
        observe: { updates: { BankCheckBalanceResult: { balance: 1500 } } },
        expect: { ok: false },
      },
    );
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain(
      'trace.jsonl:2: expected the observation to be refused: it was applied',
    );
  });

  it('still detects the rejected transfer once the key is spelt right', async () => {
    const result = await replay({ propose: transfer900, expect: 'allow' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('0 passed, 1 failed');
  });
});
