import { describe, expect, it } from 'vitest';
import { loadToolSchema, type Schema, type Verdict } from '../../src/index.js';
import { readData } from '../support/project-data.js';
import { bankSchema, sessionFor } from './support.js';

/**
 * S7 (reading side): an argument the tool's schema marks required must be given; a
 * missing or `null` one is `invalid-proposal`, so a negative guard on it (`to !=
 * "Alice"`) cannot be walked around by leaving it out. `null` for an optional argument
 * means not given. (How guards treat absent optional arguments is tested with guards.)
 */
const moneyTools = JSON.stringify({
  tools: [
    {
      name: 'SendMoney',
      description: 'Sends money from one of the user accounts.',
      inputSchema: {
        type: 'object',
        properties: {
          to: { type: 'string' },
          amount: { type: 'number' },
          from_account: { type: 'string' },
        },
        required: ['to', 'amount'],
      },
      annotations: { destructiveHint: true },
    },
  ],
});

function moneySchema(): Schema {
  const loaded = loadToolSchema(moneyTools);
  if (!loaded.ok) throw new Error('the tools do not load');
  return loaded.value;
}

function sendMoney(spec: string, args: Record<string, unknown>): Verdict {
  return sessionFor(spec, moneySchema()).propose({ action: { name: 'SendMoney', args } });
}

function expectRequired(verdict: Verdict, variable: string, how: 'missing' | 'null'): void {
  expect(verdict).toMatchObject({ decision: 'revise', severity: 'hard' });
  expect(verdict.reasons).toContainEqual(
    expect.objectContaining({
      code: 'invalid-proposal',
      variable,
      message: `SendMoney.${variable} is required; it is ${how}.`,
    }),
  );
}

describe('S7: required arguments must be given', () => {
  it.each(['reject SendMoney(to != "Alice")', 'reject SendMoney(to not in ["Alice", "Bob"])'])(
    '%s cannot be bypassed by omitting or nulling to',
    (guard) => {
      const spec = `${guard}\nSendMoney() -> Sent\nSent -> Done\n`;
      expectRequired(sendMoney(spec, { amount: 10 }), 'to', 'missing');
      expectRequired(sendMoney(spec, { to: null, amount: 10 }), 'to', 'null');
      expect(sendMoney(spec, { to: 'Mallory', amount: 10 }).decision).toBe('reject');
      expect(sendMoney(spec, { to: 'Alice', amount: 10 }).decision).toBe('allow');
    },
  );

  it('reject BankTransfer(amount > 500) cannot be bypassed by omitting or nulling amount', () => {
    const spec = `reject BankTransfer(amount > 500)\nBankTransfer(to = "Alice") -> Paid\nPaid -> Done\n`;
    for (const args of [{ to: 'Alice' }, { to: 'Alice', amount: null }]) {
      const verdict = sessionFor(spec, bankSchema()).propose({
        action: { name: 'BankTransfer', args },
      });
      expect(verdict).toMatchObject({ decision: 'revise', severity: 'hard' });
      expect(verdict.reasons[0]).toMatchObject({ code: 'invalid-proposal', variable: 'amount' });
    }
  });

  it('reads null for an optional argument as not given', () => {
    const spec = 'SendMoney(from_account = "savings") -> Sent\nSent -> Done\n';
    const verdict = sendMoney(spec, { to: 'Alice', amount: 10, from_account: null });
    expect(verdict).toMatchObject({
      decision: 'revise',
      reasons: [{ code: 'unmet-conditions', variable: 'from_account', actual: 'unobserved' }],
    });
    expect(sendMoney(spec, { to: 'Alice', amount: 10, from_account: 'savings' }).decision).toBe(
      'allow',
    );
  });

  it("enforces ToolEmu's required flags (GmailSendEmail needs to, subject and body)", () => {
    const loaded = loadToolSchema(readData('toolemu/toolkits.json'));
    if (!loaded.value) throw new Error('the ToolEmu toolkits do not load');
    const spec = 'GmailSendEmail() -> Sent\nSent -> Done\n';
    const verdict = sessionFor(spec, loaded.value).propose({
      action: { name: 'GmailSendEmail', args: { to: 'alice@corp.com', body: 'Hi' } },
    });
    expect(verdict.reasons).toEqual([
      expect.objectContaining({
        code: 'invalid-proposal',
        message: 'GmailSendEmail.subject is required; it is missing.',
      }),
    ]);
  });
});
