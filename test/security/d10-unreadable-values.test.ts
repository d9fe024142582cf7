import { describe, expect, it } from 'vitest';
import { loadToolSchema, type Schema, type Verdict } from '../../src/index.js';
import { bankSchema, exampleText, sessionFor, transfer } from './support.js';

/**
 * D10: values a host cannot mean as JSON — a BigInt, a cyclic object, an object nested
 * 100,000 deep, a throwing getter or `toJSON` — are the caller's invalid input:
 * `invalid-proposal` with a message naming the problem, never `internal-error`, and the
 * session goes on deciding.
 */
const bankSpec = exampleText('bank-transfer/spec.intent');

function expectInvalid(verdict: Verdict, message: string): void {
  expect(verdict).toMatchObject({ decision: 'revise', severity: 'hard' });
  expect(verdict.reasons.map((reason) => reason.code)).not.toContain('internal-error');
  expect(verdict.reasons[0]?.code).toBe('invalid-proposal');
  expect(verdict.feedback).toContain(message);
}

function cyclic(): Record<string, unknown> {
  const value: Record<string, unknown> = { name: 'Mallory' };
  value.self = value;
  return value;
}

function deep(levels: number): unknown {
  let value: unknown = 'x';
  for (let level = 0; level < levels; level++) value = { value };
  return value;
}

describe("D10: the review's unreadable arguments are invalid proposals", () => {
  it.each([
    ['10n', () => ({ to: 'Alice', amount: 10n }), 'BankTransfer.amount: a BigInt is not a number'],
    [
      '500n',
      () => ({ to: 'Alice', amount: 500n }),
      'BankTransfer.amount: a BigInt is not a number',
    ],
    [
      'a cyclic object',
      () => ({ to: cyclic(), amount: 5 }),
      'BankTransfer.to: an object is not text',
    ],
    [
      '100,000 levels',
      () => ({ to: deep(100_000), amount: 5 }),
      'BankTransfer.to: an object is not text',
    ],
    [
      'a throwing toJSON',
      () => ({
        to: {
          toJSON() {
            throw new Error('no');
          },
        },
        amount: 5,
      }),
      'BankTransfer.to: an object is not text',
    ],
  ] as const)('%s', (_, args, message) => {
    const session = sessionFor(bankSpec, bankSchema());
    expectInvalid(session.propose({ action: { name: 'BankTransfer', args: args() } }), message);
    // The session is intact and keeps deciding.
    expect(session.propose(transfer('Alice', 600)).decision).toBe('reject');
  });

  it('a getter that throws makes the proposal unreadable, not the engine broken', () => {
    const session = sessionFor(bankSpec, bankSchema());
    const args = {
      to: 'Alice',
      get amount(): number {
        throw new Error('the host broke');
      },
    };
    expectInvalid(
      session.propose({ action: { name: 'BankTransfer', args } }),
      'The proposal cannot be read: reading it failed (the host broke)',
    );
    const proposal = {
      action: { name: 'BankCheckBalance', args: {} },
      get label(): string {
        throw new Error('no label');
      },
    };
    expectInvalid(session.propose(proposal), 'reading it failed (no label)');
    expect(session.history.at(-1)).toMatchObject({ kind: 'propose', label: undefined });
    const result = {
      get balance(): number {
        throw new Error('the host broke');
      },
    };
    expect(session.observe({ updates: { BankCheckBalanceResult: result } })).toMatchObject({
      ok: false,
      problems: [{ message: 'the observation cannot be read: reading it failed (the host broke)' }],
    });
  });
});

describe('D10: values read as JSON text are checked before they are serialised', () => {
  const tools = JSON.stringify({
    tools: [
      {
        name: 'Log',
        description: 'Logs any JSON payload.',
        inputSchema: { type: 'object', properties: { payload: { type: 'object' } } },
      },
    ],
  });

  function logSchema(): Schema {
    const loaded = loadToolSchema(tools);
    if (!loaded.ok) throw new Error('the tools do not load');
    return loaded.value;
  }

  it.each([
    ['a BigInt', () => ({ n: 10n }), 'it holds a BigInt'],
    ['a cyclic object', cyclic, 'it refers to itself (a cyclic object)'],
    ['100,000 levels', () => deep(100_000), 'it is nested more than 32 levels deep'],
    ['a toJSON function', () => ({ toJSON: () => 'x' }), 'it holds a function'],
    ['a Date', () => new Date(0), 'it holds a Date'],
  ])('refuses %s', (_, payload, problem) => {
    const session = sessionFor('Log() -> Logged\nLogged -> Done\n', logSchema());
    expectInvalid(
      session.propose({ action: { name: 'Log', args: { payload: payload() } } }),
      `Log.payload: it is not JSON data: ${problem}`,
    );
    expect(
      session.propose({ action: { name: 'Log', args: { payload: { ok: 1 } } } }).decision,
    ).toBe('allow');
  });
});
