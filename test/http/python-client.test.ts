import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ProcessRun, runProcess } from '../support/run-process.js';
import { killAll, projectRoot, startServer } from './server-process.js';

const token = 'python-token-0123456789abcdef';
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'intentguard-python-'));
});
afterEach(killAll);
afterAll(async () => {
  await killAll();
  rmSync(dir, { recursive: true, force: true });
});

const approverToken = 'python-approver-0123456789abcdef';

function python(args: readonly string[], env: Record<string, string> = {}): Promise<ProcessRun> {
  return runProcess('python3', ['examples/python/guarded_agent.py', ...args], {
    cwd: projectRoot,
    env: { ...process.env, INTENTGUARD_TOKEN: token, ...env },
    timeoutMs: 20_000,
  });
}

describe('the Python client example against a live server', () => {
  it('guards the bank transfer: refusals with reasons, the approval, the transfer, finish', async () => {
    const server = await startServer(['--db', join(dir, 'py.db'), '--token', token]);
    const result = await python(['--url', server.url]);
    expect(result.stderr).toBe('');
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^session [0-9a-f-]{36}$/);
    expect(lines.slice(1)).toEqual([
      'call-1 BankTransfer {"to": "Alice", "amount": 500}: refuse (revise, unmet-conditions)',
      'call-2 BankCheckBalance {}: run → {"balance": 1500} (observed: True)',
      'call-3 BankTransfer {"to": "Alice", "amount": 900}: refuse (reject, guard-reject)',
      expect.stringMatching(/^call-4 BankTransfer \{"to": "Alice", "amount": 500\}: ask — .+/),
      'call-4 user approves',
      'call-4 BankTransfer {"to": "Alice", "amount": 500}: run → {"status": "sent", "to": "Alice", "amount": 500} (observed: True)',
      'finish: run',
      'transfers: [["Alice", 500]]',
      'decisions: call-1=refuse, call-2=run, call-3=refuse, call-4=run',
    ]);
    expect(result.code).toBe(0);
  }, 60_000);

  it('with approver tokens (S3), the person approves with theirs; the agent token cannot', async () => {
    const server = await startServer([
      '--db',
      join(dir, 'py-roles.db'),
      '--token',
      token,
      '--approver-token',
      approverToken,
    ]);
    const approved = await python(['--url', server.url], {
      INTENTGUARD_APPROVER_TOKEN: approverToken,
    });
    expect(approved.stderr).toBe('');
    expect(approved.stdout).toContain('call-4 user approves');
    expect(approved.stdout).toContain('transfers: [["Alice", 500]]');
    expect(approved.code).toBe(0);

    const alone = await python(['--url', server.url]);
    expect(alone.stdout).toMatch(/call-4 not approved: POST .*\/approve: 403 forbidden/);
    expect(alone.stdout).toContain('transfers: []');
    expect(alone.stdout).not.toContain('finish: run');
    expect(alone.code).toBe(1);
  }, 60_000);

  it('when the user declines, nothing is transferred and the guard does not let the agent finish', async () => {
    const server = await startServer(['--db', join(dir, 'py-deny.db'), '--token', token]);
    const result = await python(['--url', server.url, '--deny']);
    expect(result.stdout).toContain('call-4 user declines');
    expect(result.stdout).toContain('transfers: []');
    expect(result.stdout).not.toContain('finish: run');
    expect(result.code).toBe(1);
  }, 60_000);

  it("--policy: the operator's rules refuse the transfer the spec allows, the policy's reason first", async () => {
    const policy = join(dir, 'bank.policy');
    writeFileSync(
      policy,
      '# Transfers only from balances of at least 2000.\nBankCheckBalanceResult(balance >= 2000) & BankTransfer(amount <= 500) -> Permitted\n',
    );
    const server = await startServer(['--db', join(dir, 'py-policy.db'), '--token', token]);
    const result = await python(['--url', server.url, '--policy', policy]);
    expect(result.stderr).toBe('');
    const call4 = result.stdout.split('\n').filter((line) => line.startsWith('call-4'));
    expect(call4).toHaveLength(1);
    expect(call4[0]).toMatch(
      /^call-4 BankTransfer \{"to": "Alice", "amount": 500\}: refuse \(revise, policy-violation, by the policy: .*balance.*2000/,
    );
    expect(result.stdout).toContain('transfers: []');
    expect(result.code).toBe(1);

    const broken = join(dir, 'broken.policy');
    writeFileSync(broken, 'BankCheckBalance() -> Done\n');
    const refused = await python(['--url', server.url, '--policy', broken]);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('422 invalid-policy');
    expect(refused.stderr).toContain('done-in-policy');
    expect(refused.code).toBe(1);
  }, 60_000);
});
