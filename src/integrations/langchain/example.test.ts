import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/* The runnable example in examples/langchain, run as a person runs it. */

const root = resolve(new URL('../../..', import.meta.url).pathname);

describe('examples/langchain/run.ts', () => {
  it('prints the refusal, the feedback, the corrected call, the approval and the end', async () => {
    const { stdout } = await promisify(execFile)(
      resolve(root, 'node_modules/.bin/tsx'),
      ['examples/langchain/run.ts'],
      { cwd: root, timeout: 60_000 },
    );
    const lines = stdout.trimEnd().split('\n');
    const order = [
      'user: Transfer $500 to Alice if my balance exceeds $1000.',
      'model calls BankCheckBalance {}',
      '  result: {"balance":1500}',
      'model calls BankTransfer {"to":"Alice","amount":5000}',
      '  refused: intentguard: reject.',
      '    The spec refuses BankTransfer with amount greater than 500: never move more than the user asked for.',
      'model: I could not transfer the money, so I am done.',
      '  intentguard to the model: intentguard: revise (hard).',
      '    The task is not done yet.',
      'model calls BankTransfer {"to":"Alice","amount":500}',
      '  person asked: Transfers money from the user\'s checking account to a payee (BankTransfer) with to: "Alice", amount: 500? Why: Confirm the transfer details with the user. (financial)',
      '  person: approve',
      '  result: Sent $500 to Alice.',
      'model: Transferred $500 to Alice.',
      'intentguard: done=true finished=true achieved={"BalanceKnown":1,"Transferred":1} (8 journal events)',
    ];
    const positions = order.map((line) => lines.indexOf(line));
    expect(positions).not.toContain(-1);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    // The run ends with the guard's verdict, after the model's last answer.
    expect(lines.at(-1)).toBe(order.at(-1));
    // Only one transfer ran: the refused one never reached the tool.
    expect(lines.filter((line) => line.startsWith('  result: Sent'))).toHaveLength(1);
  });
});
