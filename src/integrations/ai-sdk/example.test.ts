import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** The runnable example (`npx tsx examples/ai-sdk/main.ts`) runs offline and tells the story. */
const root = fileURLToPath(new URL('../../../', import.meta.url));

describe('examples/ai-sdk', () => {
  it('prints refusal → feedback → corrected calls → confirmation → done', () => {
    const output = execFileSync(process.execPath, ['--import', 'tsx', 'examples/ai-sdk/main.ts'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
    });
    const lines = output.split('\n').filter((line) => /^\S/.test(line));
    expect(lines).toEqual([
      'user    Transfer $500 to Alice if my balance exceeds $1000.',
      'model   BankTransfer {"to":"Alice","amount":500}',
      'guard   refuse; the model reads:',
      'model   BankCheckBalance {}',
      'guard   run BankCheckBalance',
      'tool    BankCheckBalance → {"balance":1500}',
      'model   BankTransfer {"to":"Alice","amount":500}',
      'guard   ask the person: Allow BankTransfer {"to":"Alice","amount":500}? Confirm the transfer details with the user. (financial)',
      'server  request ends: waiting for call-3; journal of 4 events stored',
      'person  approves call-3',
      'guard   approved call-3: run',
      'tool    BankTransfer → sent $500 to Alice',
      'model   finish {}',
      'guard   finish: the task is done',
      'server  request ends: finished; journal of 7 events stored',
    ]);
    // The feedback the model reads names the missing step.
    expect(output).toContain(
      '- BalanceKnown must be achieved first; it has not been. To achieve it: call BankCheckBalance.',
    );
  });
});
