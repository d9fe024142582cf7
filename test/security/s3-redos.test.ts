import { describe, expect, it } from 'vitest';
import { checkSpec, loadToolSchema } from '../../src/index.js';
import { run } from '../cli/run.js';
import { bankSchema, sessionFor, transfer } from './support.js';

/**
 * S3: `matches` ran the spec's regex with JavaScript's backtracking engine on the
 * agent's text: `/(a+)+$/` against `"a"×30 + "!"` took 114 s in one synchronous
 * `propose`. Regexes now run on RE2 (linear time); constructs that need backtracking
 * are spec errors where the regex is written.
 */
const catastrophic = ['/(a+)+$/', '/^(a|a)*$/', '/(a*)*b/', '/^(\\w+\\s?)*$/'];

function guardSpec(regex: string): string {
  return `reject BankTransfer(to matches ${regex}) because "x"
BankTransfer(amount = 500) -> T
T -> Done`;
}

/** Milliseconds a call takes. */
function timed<T>(call: () => T): { result: T; ms: number } {
  const started = performance.now();
  const result = call();
  return { result, ms: performance.now() - started };
}

describe('S3: catastrophic regexes run in linear time', () => {
  it.each(catastrophic)('checks %s without a warning: the engine runs it safely', (regex) => {
    const checked = checkSpec(guardSpec(regex), bankSchema());
    expect(checked.ok).toBe(true);
    expect(checked.diagnostics).toEqual([]);
  });

  it.each([16, 20, 24, 26, 28, 30, 1_000])(
    "answers the review's guard for a %i-character run of a's at once, with allow",
    (length) => {
      const session = sessionFor(guardSpec('/(a+)+$/'), bankSchema());
      const { result, ms } = timed(() => session.propose(transfer(`${'a'.repeat(length)}!`, 500)));
      expect(result.decision).toBe('allow');
      expect(ms).toBeLessThan(500);
    },
  );

  it.each(catastrophic)('decides a 100,000-character adversarial argument against %s', (regex) => {
    // The longest text a proposal may carry (limits.maxValueLength).
    const hostile = regex.includes('\\w') ? `${'ab '.repeat(33_333)}!` : `${'a'.repeat(99_999)}!`;
    expect(hostile.length).toBe(100_000);
    const guarded = sessionFor(guardSpec(regex), bankSchema());
    const asGuard = timed(() => guarded.propose(transfer(hostile, 500)));
    // The whole value does not match, and it has no parts (words are not parts, O1).
    expect(asGuard.result.decision).toBe('allow');
    expect(asGuard.ms).toBeLessThan(2_000);

    const ruled = sessionFor(
      `BankTransfer(to matches ${regex}, amount = 500) -> T\nT -> Done`,
      bankSchema(),
    );
    const asRule = timed(() => ruled.propose(transfer(hostile, 500)));
    expect(asRule.result).toMatchObject({ decision: 'revise', severity: 'hard' });
    expect(asRule.ms).toBeLessThan(2_000);
  });

  it('still fires the guard on a value it matches', () => {
    const session = sessionFor(guardSpec('/(a+)+$/'), bankSchema());
    expect(session.propose(transfer('a'.repeat(99_999), 500)).decision).toBe('reject');
  });

  it('judges a long tool result by a Done rule in linear time', () => {
    const tools = loadToolSchema(
      JSON.stringify({
        tools: [
          {
            name: 'ReadEmail',
            description: 'Reads an email.',
            inputSchema: { type: 'object', properties: {} },
            outputSchema: { type: 'object', properties: { body: { type: 'string' } } },
            annotations: { readOnlyHint: true },
          },
        ],
      }),
    );
    if (!tools.ok) throw new Error('the tools do not load');
    const session = sessionFor(
      'ReadEmailResult(body matches /^(\\w+\\s?)*$/) -> Done',
      tools.value,
    );
    const body = `${'word '.repeat(150_000)}!`;
    const { result, ms } = timed(() => session.observe({ updates: { ReadEmailResult: { body } } }));
    expect(result.ok).toBe(true);
    expect(session.status().done).toBe(false);
    expect(ms).toBeLessThan(2_000);
  });

  it.each([
    ['/(a)\\1/', "a backreference '\\1'"],
    ['/^(?!.*@company\\.com$)/', "lookahead '(?!'"],
    ['/(?<=@)evil/', "lookbehind '(?<='"],
    ['/(?>a+)b/', "an atomic group '(?>'"],
    ['/a++b/', "a possessive quantifier '++'"],
  ])('refuses %s where it is written, saying why', (regex, construct) => {
    const text = guardSpec(regex);
    const checked = checkSpec(text, bankSchema());
    expect(checked.ok).toBe(false);
    const [diagnostic] = checked.diagnostics;
    expect(diagnostic).toMatchObject({
      code: 'invalid-regex',
      severity: 'error',
      range: { start: { line: 1, column: 32 }, end: { line: 1, column: 32 + regex.length } },
    });
    expect(diagnostic?.message).toContain(`${construct} is not supported (it needs backtracking)`);
    expect(diagnostic?.hint).toMatch(/linear time/);
  });

  it('answers the CLI replay of a 41-character value at once (it hung before)', async () => {
    const examples = new URL('../../examples/bank-transfer/', import.meta.url).pathname;
    const trace = `${JSON.stringify({ propose: transfer(`${'a'.repeat(40)}!`, 500), expect: 'allow' })}\n`;
    const started = performance.now();
    const result = await run(
      [
        'replay',
        'spec.intent',
        '--tools',
        `${examples}tools.json`,
        '--trace',
        'trace.jsonl',
        '--check',
      ],
      { files: { 'spec.intent': guardSpec('/(a+)+$/'), 'trace.jsonl': trace } },
    );
    expect(result.code).toBe(0);
    expect(`${result.stdout}${result.stderr}`).toContain('1 passed, 0 failed');
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
