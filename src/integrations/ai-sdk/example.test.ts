import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The runnable examples (`npx tsx examples/ai-sdk/main.ts` on ai 6 with `guardTools`,
 * `examples/ai-sdk/tool-approval.ts` on ai 7 with `toolApproval`) run offline and tell
 * the same story.
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));

function run(example: string): string {
  return execFileSync(process.execPath, ['--import', 'tsx', example], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
  });
}

const question =
  'Transfers money from the checking account to a payee (BankTransfer) with to: "Alice", amount: 500? Why: Confirm the transfer details with the user. (financial)';

function story(waiting: readonly string[]): string[] {
  return [
    'user    Transfer $500 to Alice if my balance exceeds $1000.',
    'model   BankTransfer {"to":"Alice","amount":500}',
    'guard   refuse; the model reads:',
    'model   BankCheckBalance {}',
    'guard   run BankCheckBalance',
    'tool    BankCheckBalance → {"balance":1500}',
    'model   BankTransfer {"to":"Alice","amount":500}',
    `guard   ask the person: ${question}`,
    ...waiting,
    'person  approves call-3',
    'guard   approved call-3: run',
    'tool    BankTransfer → sent $500 to Alice',
    'model   finish {}',
    'guard   finish: the task is done',
    'server  request ends: finished; journal of 7 events stored',
  ];
}

describe('examples/ai-sdk', () => {
  it('main.ts (ai 6, guardTools): refusal → feedback → corrected calls → confirmation → done', () => {
    const output = run('examples/ai-sdk/main.ts');
    expect(output.split('\n').filter((line) => /^\S/.test(line))).toEqual(
      story([
        `server  question for call-3: ${question}`,
        'server  request ends: waiting for call-3; journal of 4 events stored',
      ]),
    );
    // The feedback the model reads names the missing step.
    expect(output).toContain(
      '- BalanceKnown must be achieved first; it has not been. To achieve it: call BankCheckBalance.',
    );
  });

  it('tool-approval.ts (ai 7, toolApproval): the same story, the question as the request’s reason', () => {
    const output = run('examples/ai-sdk/tool-approval.ts');
    expect(output.split('\n').filter((line) => /^\S/.test(line))).toEqual(
      story([
        'server  request ends: waiting for call-3; journal of 4 events stored',
        `person  reads: ${question}`,
      ]),
    );
    expect(output).toContain('To achieve it: call BankCheckBalance.');
  });
});
