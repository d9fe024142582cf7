import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe('examples/openai-agents/run.ts', () => {
  it('prints the run: failure, refusal, feedback, corrected call, confirmation, restore, done', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'examples/openai-agents/run.ts'],
      { cwd: root, timeout: 60_000 },
    );
    const lines = stdout.trim().split('\n');
    const expected: (string | RegExp)[] = [
      'user: Transfer $500 to Alice if my balance exceeds $1000.',
      'model calls bank_check_balance {} (b1)',
      '  bank: balance check failed (bank offline)',
      /^ {2}model reads b1: An error occurred .* intentguard: the call failed/,
      'model calls bank_check_balance {} (b2)',
      '  bank: balance is $1500',
      '  model reads b2: {"balance":1500}',
      'model calls bank_transfer {"to":"Alice","amount":5000} (t1)',
      'model calls finish {"summary":"Sent the money."} (f1)',
      /^ {2}model reads t1: intentguard: reject\. .*never move more than the user asked for/,
      /^ {2}model reads f1: intentguard: revise \(hard\)\. \| The task is not done yet\./,
      'model calls bank_transfer {"to":"Alice","amount":500} (t2)',
      'run paused: 1 call waits for the user',
      /^saved: run state and guard journal \(\d+ events\)$/,
      /^user is asked: Transfers money from the user's checking account to a payee \(BankTransfer\) with to: "Alice", amount: 500\? Why: Confirm the transfer details/,
      'user answers: yes',
      '  bank: sent $500 to Alice',
      '  model reads t2: sent $500 to Alice',
      'model calls finish {"summary":"Sent $500 to Alice."} (f2)',
      'final output: Sent $500 to Alice.',
      'guard: finished; achieved BalanceKnown, Transferred',
    ];
    expect(lines).toHaveLength(expected.length);
    expected.forEach((line, index) => {
      if (typeof line === 'string') expect(lines[index]).toBe(line);
      else expect(lines[index]).toMatch(line);
    });
    // The $5000 transfer never reached the bank.
    expect(stdout).not.toContain('sent $5000');
  });
});
