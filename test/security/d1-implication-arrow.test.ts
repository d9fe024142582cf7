import { describe, expect, it } from 'vitest';
import { checkSpec } from '../../src/index.js';
import { print } from '../../src/language/index.js';
import { run } from '../cli/run.js';
import { bankSchema } from './support.js';

/** D1: `⇒`, listed among the accepted spellings, was an unexpected character. */
const tools = new URL('../../examples/bank-transfer/tools.json', import.meta.url).pathname;

describe('D1: the ⇒ arrow', () => {
  it('reads K ⇒ Done as the rule K -> Done, like → and =>', () => {
    for (const arrow of ['⇒', '→', '=>', '->']) {
      const checked = checkSpec(`BankCheckBalance() ${arrow} K\nK ${arrow} Done`, bankSchema());
      expect(checked.diagnostics, arrow).toEqual([]);
      expect(checked.ok).toBe(true);
      if (checked.ok) expect(print(checked.value.ast)).toBe('BankCheckBalance() -> K\nK -> Done\n');
    }
  });

  it('checks through the CLI with exit 0', async () => {
    const result = await run(['check', 'spec.intent', '--tools', tools], {
      files: { 'spec.intent': 'BankCheckBalance() -> K\nK ⇒ Done\n' },
    });
    expect(result.stdout).toBe('spec.intent: ok — 0 errors, 0 warnings\n');
    expect(result.code).toBe(0);
  });
});
