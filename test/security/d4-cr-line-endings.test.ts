import { describe, expect, it } from 'vitest';
import { checkSpec, renderDiagnostics } from '../../src/index.js';
import { print } from '../../src/language/index.js';
import { run } from '../cli/run.js';
import { bankSchema, exampleText } from './support.js';

/**
 * D4: with `\r` line endings (old Mac) the first comment ran to the end of the file:
 * `check` reported only `missing-done` with the whole file as line 1, and `fmt` printed
 * the spec back as one comment.
 */
const tools = new URL('../../examples/bank-transfer/tools.json', import.meta.url).pathname;
const unix = exampleText('bank-transfer/spec.intent');
const mac = unix.replace(/\n/g, '\r');
const windows = unix.replace(/\n/g, '\r\n');

describe('D4: CR-only line endings', () => {
  it('checks the bank spec with \\r, \\r\\n and \\n endings to the same rules', () => {
    const expected = checkSpec(unix, bankSchema());
    expect(expected.ok).toBe(true);
    for (const text of [mac, windows]) {
      const checked = checkSpec(text, bankSchema());
      expect(checked.diagnostics).toEqual([]);
      if (!checked.ok || !expected.ok) throw new Error('does not check');
      expect(checked.value.rules.map((rule) => rule.id)).toEqual(
        expected.value.rules.map((rule) => rule.id),
      );
      expect(checked.value.guards).toHaveLength(1);
      expect(print(checked.value.ast)).toBe(print(expected.value.ast));
    }
  });

  it('locates errors by line and shows only that line', () => {
    const text = '# a comment\rBankCheckBalance() -> Known\rKnown & Nope -> Sent\rSent -> Done';
    const checked = checkSpec(text, bankSchema());
    expect(checked.ok).toBe(false);
    expect(checked.diagnostics.map((diagnostic) => diagnostic.code)).toEqual(['unknown-objective']);
    expect(checked.diagnostics[0]?.range?.start).toMatchObject({ line: 3, column: 9 });
    const rendered = renderDiagnostics(checked.diagnostics, text, { fileName: 'mac.intent' });
    expect(rendered).toContain('--> mac.intent:3:9');
    expect(rendered).toContain('3 | Known & Nope -> Sent\n');
    expect(rendered).not.toContain('Sent -> Done');
  });

  it('ends a string at a lone \\r', () => {
    const checked = checkSpec(
      'BankCheckBalance() -> Known\rKnown & BankTransfer(to = "Al\rKnown -> Done',
      bankSchema(),
    );
    expect(checked.diagnostics.map((diagnostic) => diagnostic.code)).toEqual([
      'unterminated-string',
    ]);
    expect(checked.diagnostics[0]?.range?.start).toMatchObject({ line: 2, column: 27 });
  });

  it('check and fmt through the CLI', async () => {
    const files = { 'mac.intent': mac, 'unix.intent': unix };
    const checked = await run(['check', 'mac.intent', '--tools', tools], { files });
    expect(checked.stdout).toBe('mac.intent: ok — 0 errors, 0 warnings\n');
    expect(checked.code).toBe(0);
    const formatted = await run(['fmt', 'mac.intent'], { files });
    const reference = await run(['fmt', 'unix.intent'], { files });
    expect(formatted.code).toBe(0);
    expect(formatted.stdout).toBe(reference.stdout);
    expect(formatted.stdout.split('\n').length).toBeGreaterThan(5);
  });
});
