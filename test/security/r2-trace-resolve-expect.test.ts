import { describe, expect, it } from 'vitest';
import { formatTrace, parseTrace } from '../../src/index.js';
import { run } from '../cli/run.js';

/**
 * Trace format (FORMATS.md §3): a `resolve` line may carry `"expect": {"committed":
 * false}`, so a trace can show an approval that must not commit — the state changed
 * since it was asked — and `replay --check` passes on it, and fails when it commits.
 */

const spec = 'examples/bank-transfer/spec.intent';
const tools = 'examples/bank-transfer/tools.json';

const lines = (resolve: string) =>
  [
    '{"propose": {"action": {"name": "BankCheckBalance", "args": {}}}, "expect": "allow"}',
    '{"observe": {"updates": {"BankCheckBalanceResult": {"balance": 1500}}}}',
    '{"propose": {"action": {"name": "BankTransfer", "args": {"to": "Alice", "amount": 500}}}, "expect": "confirm"}',
    // The balance drops while the person is asked: the approval comes too late.
    '{"observe": {"updates": {"BankCheckBalanceResult": {"balance": 800}}}}',
    resolve,
  ].join('\n');

async function replay(trace: string) {
  return run(
    [
      'replay',
      spec,
      '--tools',
      tools,
      '--trace',
      't.jsonl',
      '--now',
      '2025-06-02T09:00',
      '--check',
    ],
    { files: { 't.jsonl': `${trace}\n` } },
  );
}

describe('resolve lines with expect', () => {
  it('passes when an approval that the state no longer allows is expected not to commit', async () => {
    const result = await replay(
      lines('{"resolve": {"approved": true}, "expect": {"committed": false}}'),
    );
    expect(result.stderr).toBe('3 passed, 0 failed\n');
    expect(result.code).toBe(0);
    const last = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as {
      committed: boolean;
      verdict?: unknown;
    };
    expect(last).toMatchObject({ committed: false, verdict: expect.anything() });
  });

  it('fails when the line expects the other outcome, or nothing', async () => {
    const commits = await replay(
      lines('{"resolve": {"approved": true}, "expect": {"committed": true}}'),
    );
    expect(commits.code).toBe(1);
    expect(commits.stderr).toMatch(
      /t\.jsonl:5: expected the approval to commit: The state changed/,
    );
    const bare = await replay(lines('{"resolve": {"approved": true}}'));
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain('2 passed, 1 failed');
  });

  it('fails when an approval expected not to commit does commit', async () => {
    const trace = [
      '{"propose": {"action": {"name": "BankCheckBalance", "args": {}}}, "expect": "allow"}',
      '{"observe": {"updates": {"BankCheckBalanceResult": {"balance": 1500}}}}',
      '{"propose": {"action": {"name": "BankTransfer", "args": {"to": "Alice", "amount": 500}}}, "expect": "confirm"}',
      '{"resolve": {"approved": true}, "expect": {"committed": false}}',
    ].join('\n');
    const result = await replay(trace);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      't.jsonl:4: expected the approval not to commit: it was committed',
    );
  });

  it('never passes a resolve with nothing waiting, and counts a denial as not committed', async () => {
    const nothing = await replay('{"resolve": {"approved": true}, "expect": {"committed": false}}');
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain('No proposal is waiting for approval.');
    const denied = await replay(
      lines('{"resolve": {"approved": false}, "expect": {"committed": false}}'),
    );
    expect(denied.code).toBe(0);
  });

  it('reads expect strictly and writes it back', async () => {
    for (const bad of [
      '{"resolve": {"approved": true}, "expect": {"commited": false}}',
      '{"resolve": {"approved": true}, "expect": {"committed": "no"}}',
      '{"resolve": {"approved": true}, "expect": "reject"}',
    ]) {
      const result = await replay(bad);
      expect(result.code, bad).toBe(2);
      expect(result.stderr, bad).toContain('"expect" of a resolve');
    }
    const parsed = parseTrace(
      '{"resolve": {"approved": true}, "id": "c1", "expect": {"committed": false}}\n',
    );
    expect(parsed.ok).toBe(true);
    const events = parsed.value?.events ?? [];
    expect(events).toEqual([
      { resolve: { approved: true }, id: 'c1', expect: { committed: false } },
    ]);
    expect(parseTrace(formatTrace(events)).value?.events).toEqual(events);
  });
});
