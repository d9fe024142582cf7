import { describe, expect, it } from 'vitest';
import { run } from '../cli/run.js';

/**
 * D8: `--escalate-after` was read with `Number()`: `""` became 0 (never escalate), `0x10`
 * 16 and `1e3` 1000. Every number flag now takes plain digits only.
 */
const examples = new URL('../../examples/bank-transfer/', import.meta.url).pathname;
const replay = (value: string) =>
  run([
    'replay',
    `${examples}spec.intent`,
    '--tools',
    `${examples}tools.json`,
    '--trace',
    `${examples}trace.jsonl`,
    '--escalate-after',
    value,
  ]);

describe('D8: strict number flags', () => {
  it.each(['', '0x10', '1e3', '-1', 'abc', '1e400', '1.5', ' 5', '5 ', '+5', '1_000', '2000000'])(
    '--escalate-after %j is a usage error',
    async (value) => {
      const result = await replay(value);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        `intentguard: --escalate-after: '${value}' is not a whole number from 0 to 1000000 (write plain digits)\n`,
      );
    },
  );

  it.each(['0', '3', '10'])('--escalate-after %s is accepted', async (value) => {
    const result = await replay(value);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it.each([
    ['--samples', '0x2'],
    ['--rounds', '1e1'],
    ['--max-output-tokens', ' 500'],
    ['--temperature', '1e-1'],
    ['--temperature', 'Infinity'],
    ['--temperature', ''],
  ])('formalize %s %j is a usage error before any model call', async (flag, value) => {
    const result = await run([
      'formalize',
      'Transfer $5 to Alice',
      '--tools',
      `${examples}tools.json`,
      '--model',
      'openai:gpt-4o',
      flag,
      value,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`^intentguard: ${flag}: '${value}' is not a`));
  });
});
