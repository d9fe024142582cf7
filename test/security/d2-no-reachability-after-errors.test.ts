import { describe, expect, it } from 'vitest';
import { analyzeSpec, checkSpec } from '../../src/index.js';
import { run } from '../cli/run.js';
import { bankSchema } from './support.js';

/**
 * D2: every invalid-regex spec printed false `guard-shadows-rule` / `unreachable-rule`
 * warnings before the real error. Reachability is judged only on a spec without errors,
 * syntax errors included.
 */
const tools = new URL('../../examples/bank-transfer/tools.json', import.meta.url).pathname;
const reachabilityCodes = ['unreachable-rule', 'guard-shadows-rule', 'unused-branch'];

const specWithGuard = (constraint: string) =>
  [
    'BankCheckBalance() -> Known',
    'Known & BankTransfer(to = "Alice", amount = 500) -> Sent',
    'Sent -> Done',
    `reject BankTransfer(${constraint})`,
  ].join('\n');
const regexGuard = (regex: string) => specWithGuard(`to matches ${regex}`);

const invalidRegexes = [
  '/(abc/',
  '/a{2,1}/',
  '/abc/g',
  '/abc/x',
  '/(?<n>a)(?<n>b)/',
  '/\\p{Foo}/u',
  '/*a/',
];

describe('D2: no reachability warnings on a spec with errors', () => {
  it.each(invalidRegexes)('%s: only the regex error, no false warnings', (regex) => {
    const diagnostics = analyzeSpec(regexGuard(regex), bankSchema());
    expect(diagnostics.map((diagnostic) => diagnostic.code)).toEqual(['invalid-regex']);
    const checked = checkSpec(regexGuard(regex), bankSchema());
    expect(checked.ok).toBe(false);
    expect(checked.diagnostics.filter((diagnostic) => diagnostic.severity === 'warning')).toEqual(
      [],
    );
  });

  it('still warns on a valid spec whose guard does shadow the rule', () => {
    const codes = analyzeSpec(specWithGuard('amount > 100'), bankSchema()).map((item) => item.code);
    expect(codes).toEqual(['unreachable-rule', 'guard-shadows-rule']);
  });

  it('prints the real error first through the CLI', async () => {
    const result = await run(['check', 'spec.intent', '--tools', tools], {
      files: { 'spec.intent': regexGuard('/(abc/') },
    });
    expect(result.code).toBe(1);
    expect(result.stdout.split('\n')[0]).toMatch(/^error\[invalid-regex\]/);
    expect(result.stdout).toContain('spec.intent: invalid — 1 error, 0 warnings');
    for (const code of reachabilityCodes) expect(result.stdout).not.toContain(code);
  });
});
