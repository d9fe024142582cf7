import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createMajoritySession } from '../engine/majority-session.js';
import { checkSpec, type Spec, unwrap } from '../language/index.js';
import { loadToolSchema } from '../schema/index.js';
import { allGuardParts } from './all-guard-parts.js';
import { createGuard, restoreGuard } from './create-guard.js';
import { IntentGuard } from './intent-guard.js';
import type { GuardJournal, JournalEvent, ToolCall } from './types.js';

const examples = new URL('../../examples/', import.meta.url);
const bankText = readFileSync(new URL('bank-transfer/spec.intent', examples), 'utf8');
const loaded = loadToolSchema(readFileSync(new URL('bank-transfer/tools.json', examples), 'utf8'));
if (!loaded.ok) throw new Error('bank tools');
const schema = loaded.value;
const now = '2025-03-14T12:00';

const balance = (id: string): ToolCall => ({ id, name: 'BankCheckBalance', args: {} });
const transfer = (id: string, to: string, amount: number): ToolCall => ({
  id,
  name: 'BankTransfer',
  args: { to, amount },
});
const spec = (text: string): Spec => unwrap(checkSpec(text, schema));

describe('a guard over a MajoritySession', () => {
  // Two samples of the bank task agree; a third asks nobody before the transfer.
  const unconfirmed = bankText.replace(/^@confirm.*$/m, '');
  const majority = () =>
    createMajoritySession([spec(bankText), spec(bankText), spec(unconfirmed)], { now });

  it('decides by the vote, commits, approves by call id and rolls a failed call back', () => {
    const guard = new IntentGuard(majority(), { parts: allGuardParts });
    expect(guard.check(balance('b1')).action).toBe('run');
    expect(guard.result('b1', { output: { balance: 1500 } }).ok).toBe(true);
    const asked = guard.check(transfer('t1', 'Alice', 500));
    expect(asked).toMatchObject({ action: 'ask', verdict: { votes: { confirm: 2, allow: 1 } } });
    // Another call in between does not drop the question: it waits by its call id.
    expect(guard.check(transfer('t2', 'Mallory', 500)).action).toBe('refuse');
    expect(guard.status()).toMatchObject({ pendingIds: ['t1'], pending: true });
    expect(guard.approve('t1', true).action).toBe('run');
    expect(guard.status()).toMatchObject({ runningIds: ['t1'], achieved: { Transferred: 1 } });
    expect(guard.status().done).toBe(true);
    // The transfer failed: every member forgets it, and the task is not done.
    guard.result('t1', { error: 'the bank is down' });
    expect(guard.status()).toMatchObject({ done: false, achieved: { BalanceKnown: 1 } });
    expect(guard.finish().action).toBe('refuse');
    // The retry, with a new id, is asked and runs again.
    expect(guard.check(transfer('t3', 'Alice', 500)).action).toBe('ask');
    expect(guard.approve('t3', true).action).toBe('run');
    expect(guard.result('t3', { output: {} }).ok).toBe(true);
    expect(guard.finish().action).toBe('run');
  });

  it('fixes its journal clock from the majority session', () => {
    expect(new IntentGuard(majority(), { parts: allGuardParts }).journal()).toMatchObject({
      now: createGuard(bankText, schema, { now }).journal().now,
      timeZone: 'UTC',
    });
  });
});

describe('approvals in the journal', () => {
  function askedGuard() {
    const guard = createGuard(bankText, schema, { now });
    guard.check(balance('b1'));
    guard.result('b1', { output: { balance: 1500 } });
    guard.check(transfer('t1', 'Alice', 500));
    return guard;
  }

  it('records an approval as one resolve line of the call: the call is not proposed again', () => {
    const guard = askedGuard();
    guard.approve('t1', true);
    expect(guard.journal().events.slice(-2)).toEqual([
      {
        propose: { action: { name: 'BankTransfer', args: { to: 'Alice', amount: 500 } } },
        id: 't1',
        expect: { decision: 'confirm' },
      },
      { resolve: { approved: true }, id: 't1' },
    ]);
    expect(guard.status().proposals).toBe(2);
  });

  /** A journal as guards wrote it when an approval proposed the call again. */
  function earlierShape(journal: GuardJournal, again: readonly JournalEvent[]): GuardJournal {
    const proposal = { action: { name: 'BankTransfer', args: { to: 'Alice', amount: 500 } } };
    return {
      ...journal,
      events: [
        ...journal.events,
        ...again.map((event) =>
          'propose' in event ? { ...event, propose: proposal, id: 't1' } : event,
        ),
      ],
    };
  }

  it('restores a journal that approved by proposing the call again, and the restored guard goes on', () => {
    const asked = askedGuard().journal();
    const approved = earlierShape(asked, [
      { propose: {}, expect: { decision: 'confirm' } },
      { resolve: { approved: true }, id: 't1' },
    ]);
    const restored = restoreGuard(bankText, schema, approved);
    expect(restored.decision('t1')?.action).toBe('run');
    expect(restored.status()).toMatchObject({ runningIds: ['t1'], achieved: { Transferred: 1 } });
    expect(restored.journal().events.at(-1)).toEqual({ resolve: { approved: true }, id: 't1' });
    // A state change since the question: the call proposed again was refused then.
    const changed = earlierShape(
      {
        ...asked,
        events: [
          ...asked.events,
          { observe: { updates: { BankCheckBalanceResult: { balance: 10 } } } },
        ],
      },
      [{ propose: {}, expect: { decision: 'revise' } }],
    );
    const refused = restoreGuard(bankText, schema, changed);
    expect(refused.decision('t1')).toMatchObject({
      action: 'refuse',
      verdict: { reasons: [{ code: 'unmet-conditions' }] },
    });
  });

  it('refuses such a journal when the approval would end otherwise now', () => {
    const asked = askedGuard().journal();
    // Recorded as refused when proposed again, but nothing changed: it runs now.
    const wrong = earlierShape(asked, [{ propose: {}, expect: { decision: 'revise' } }]);
    expect(() => restoreGuard(bankText, schema, wrong)).toThrow(
      /journal event 4 does not replay as recorded/,
    );
  });
});
