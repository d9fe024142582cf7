import { describe, expect, it } from 'vitest';
import { jsonLines, run } from './run.js';

/**
 * `replay` with call ids (FORMATS.md §3): an `id` on a propose line names that
 * proposal's commit, and `{"fail": {"id": …}}` rolls it back — the tool call it allowed
 * failed, so its objectives and anticipated updates are undone and the agent may retry.
 */
const checkBalance = { action: { name: 'BankCheckBalance', args: {} } };
const balance = (amount: number) => ({ updates: { BankCheckBalanceResult: { balance: amount } } });
const transfer = (to: string, amount: number) => ({
  action: { name: 'BankTransfer', args: { to, amount } },
});

function replay(events: readonly unknown[], ...flags: string[]) {
  const trace = events.map((event) => `${JSON.stringify(event)}\n`).join('');
  return run(
    [
      'replay',
      'examples/bank-transfer/spec.intent',
      '--tools',
      'examples/bank-transfer/tools.json',
      '--trace',
      'trace.jsonl',
      '--now',
      '2025-03-14T12:00',
      ...flags,
    ],
    { files: { 'trace.jsonl': trace } },
  );
}

interface FailLine {
  readonly id: string;
  readonly rolledBack: boolean;
  readonly status: { readonly achieved: Record<string, number>; readonly done: boolean };
}

describe('replay: call ids and failed calls', () => {
  it('rolls back an approved transfer whose tool failed, so that a retry is asked again', async () => {
    const result = await replay(
      [
        { propose: checkBalance, id: 'c1', expect: 'allow' },
        { observe: balance(1500), id: 'c1' },
        { propose: transfer('Alice', 500), id: 'c2', expect: 'confirm' },
        { resolve: { approved: true }, id: 'c2' },
        { fail: { id: 'c2' } },
        { propose: transfer('Alice', 500), id: 'c3', expect: 'confirm' },
      ],
      '--check',
    );
    expect(result.stderr).toBe('3 passed, 0 failed\n');
    expect(result.code).toBe(0);
    const output = jsonLines(result.stdout) as Record<string, unknown>[];
    expect(output).toHaveLength(6);
    expect(output[3]).toMatchObject({ committed: true, status: { done: true } });
    expect(output[4] as unknown as FailLine).toEqual({
      id: 'c2',
      rolledBack: true,
      status: expect.objectContaining({ achieved: { BalanceKnown: 1 }, done: false }),
    });
  });

  it('rolls back an allowed call named on its propose line', async () => {
    const result = await replay([
      { propose: checkBalance, id: 'c1' },
      { fail: { id: 'c1' } },
      { fail: { id: 'c1' } },
    ]);
    expect(result.code).toBe(0);
    const [, first, second] = jsonLines(result.stdout) as FailLine[];
    expect(first).toMatchObject({ id: 'c1', rolledBack: true, status: { achieved: {} } });
    // Undone once: the second failure has nothing left to undo.
    expect(second).toMatchObject({ id: 'c1', rolledBack: false });
  });

  it('has nothing to undo for a refused call, and that is no failure', async () => {
    const result = await replay(
      [{ propose: transfer('Mallory', 900), id: 'c1', expect: 'reject' }, { fail: { id: 'c1' } }],
      '--check',
    );
    expect(result).toMatchObject({ code: 0, stderr: '1 passed, 0 failed\n' });
    expect((jsonLines(result.stdout) as FailLine[])[1]).toMatchObject({ rolledBack: false });
  });

  it('fails the check when a resolve names another call than the one waiting', async () => {
    const result = await replay(
      [
        { propose: checkBalance, id: 'c1' },
        { observe: balance(1500) },
        { propose: transfer('Alice', 500), id: 'c2', expect: 'confirm' },
        { resolve: { approved: true }, id: 'c9' },
      ],
      '--check',
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'trace.jsonl:4: the resolve names call "c9", but the confirmation waiting is call "c2"\'s',
    );
  });

  it('refuses a fail of an id no earlier line proposed, and names every bad line', async () => {
    const result = await replay([
      { propose: checkBalance, id: 'c1' },
      { fail: { id: 'c2' } },
      { fail: { id: 7 } },
    ]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      [
        'intentguard: trace.jsonl:2: fail.id "c2" names no call: no earlier "propose" line has this id',
        'intentguard: trace.jsonl:3: fail.id must be a non-empty string (a call id)',
        '',
      ].join('\n'),
    );
  });
});
