import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createGuard, type Guard } from '../../guard/index.js';
import { unwrap } from '../../language/index.js';
import { loadToolSchema } from '../../schema/index.js';
import { hasApprovalRequest, syncApprovals } from './messages.js';

const examples = new URL('../../../examples/', import.meta.url);
const specText = readFileSync(new URL('bank-transfer/spec.intent', examples), 'utf8');
const schema = unwrap(
  loadToolSchema(readFileSync(new URL('bank-transfer/tools.json', examples), 'utf8')),
);

/** A guard waiting for the person's answer about transfer t1. */
function waitingGuard(): Guard {
  const guard = createGuard(specText, schema, { now: '2025-03-14T12:00' });
  guard.check({ id: 'b1', name: 'BankCheckBalance' });
  guard.result('b1', { output: { balance: 1500 } });
  expect(
    guard.check({ id: 't1', name: 'BankTransfer', args: { to: 'Alice', amount: 500 } }).action,
  ).toBe('ask');
  return guard;
}

const asked = (approvalId: string, toolCallId: string) => ({
  role: 'assistant',
  content: [
    { type: 'tool-call', toolCallId, toolName: 'BankTransfer', input: {} },
    { type: 'tool-approval-request', approvalId, toolCallId },
  ],
});
const answered = (...answers: Array<[string, unknown]>) => ({
  role: 'tool',
  content: answers.map(([approvalId, approved]) => ({
    type: 'tool-approval-response',
    approvalId,
    approved,
  })),
});

describe('syncApprovals', () => {
  it('approves the call the guard asked about, once', () => {
    const guard = waitingGuard();
    const messages = [asked('a1', 't1'), answered(['a1', true])];
    expect(syncApprovals(guard, messages).map((decision) => decision.action)).toEqual(['run']);
    expect(guard.status()).toMatchObject({ pendingIds: [], runningIds: ['t1'] });
    expect(syncApprovals(guard, messages)).toEqual([]);
  });

  it('takes only a literal true as an approval', () => {
    for (const approved of ['true', 1, null, undefined]) {
      const guard = waitingGuard();
      syncApprovals(guard, [asked('a1', 't1'), answered(['a1', approved])]);
      expect(guard.journal().events.at(-1), String(approved)).toEqual({
        resolve: { approved: false },
        id: 't1',
      });
    }
  });

  it('counts the first answer for a call, as the SDK does', () => {
    const guard = waitingGuard();
    syncApprovals(guard, [asked('a1', 't1'), answered(['a1', false], ['a1', true])]);
    expect(guard.status()).toMatchObject({ pendingIds: [], runningIds: [] });
  });

  it('ignores answers without a request, for unknown calls, and outside tool messages', () => {
    const guard = waitingGuard();
    const ignored = [
      answered(['nobody-asked', true]),
      asked('a2', 'unknown-call'),
      answered(['a2', true]),
      {
        role: 'assistant',
        content: [{ type: 'tool-approval-response', approvalId: 'a3', approved: true }],
      },
      asked('a3', 't1'),
    ];
    expect(syncApprovals(guard, ignored)).toEqual([]);
    expect(guard.status().pendingIds).toEqual(['t1']);
  });

  it('survives messages that are not the SDK’s shape', () => {
    const guard = waitingGuard();
    const junk = [
      null,
      'text',
      7,
      { role: 'tool' },
      { role: 'tool', content: 'x' },
      { role: 'tool', content: [null, 3] },
    ];
    expect(syncApprovals(guard, junk)).toEqual([]);
    expect(syncApprovals(guard, undefined)).toEqual([]);
    expect(syncApprovals(guard, 'not a list' as never)).toEqual([]);
    expect(guard.status().pendingIds).toEqual(['t1']);
  });
});

describe('hasApprovalRequest', () => {
  it('finds a request for the call in the assistant messages only', () => {
    expect(hasApprovalRequest([asked('a1', 't1')], 't1')).toBe(true);
    expect(hasApprovalRequest([asked('a1', 't1')], 't2')).toBe(false);
    expect(
      hasApprovalRequest(
        [
          {
            role: 'user',
            content: [{ type: 'tool-approval-request', approvalId: 'a', toolCallId: 't1' }],
          },
        ],
        't1',
      ),
    ).toBe(false);
  });
});
