import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { unwrap } from '../language/index.js';
import { loadToolSchema, withToolNames } from '../schema/index.js';
import { createGuard } from './create-guard.js';

/**
 * Every text a model reads names a tool as its client calls it: the tool's own name when
 * the schema rewrote it (`look-up-price` → `look_up_price`), or the name given with
 * `withToolNames`. The spec keeps its identifiers.
 */
const now = new Date('2025-03-14T12:00:00Z');

const shop = unwrap(
  loadToolSchema(
    JSON.stringify({
      tools: [
        {
          name: 'look-up-price',
          annotations: { readOnlyHint: true },
          inputSchema: {
            type: 'object',
            properties: { sku: { type: 'string' } },
            required: ['sku'],
          },
        },
        {
          name: 'place-order',
          annotations: { destructiveHint: true },
          inputSchema: {
            type: 'object',
            properties: { sku: { type: 'string' }, note: { type: 'string' } },
            required: ['sku'],
          },
        },
      ],
    }),
  ),
);
const shopSpec = [
  'look_up_price(sku = "A-17") -> Priced',
  'Priced & place_order(sku = "A-17", absent(note)) -> Ordered',
  'Ordered -> Done',
  '',
].join('\n');

describe('feedback names rewritten tools by their own names', () => {
  it('says look-up-price and place-order in the refusal, the roadmap and problems', () => {
    const guard = createGuard(shopSpec, shop, { now });
    const early = guard.check({ id: '1', name: 'place-order', args: { sku: 'A-17' } });
    expect(early.action).toBe('refuse');
    expect(early.message).toContain('call look-up-price with sku equal to "A-17"');
    expect(early.message).toContain('call place-order with sku equal to "A-17"');
    expect(early.message).not.toMatch(/look_up_price|place_order/);
    expect(guard.roadmap()).toContain('call look-up-price');
    expect(guard.roadmap()).not.toMatch(/look_up_price|place_order/);

    const unknown = guard.check({ id: '2', name: 'look-up-price', args: { sku: 'A-17', x: 1 } });
    expect(unknown.message).toMatch(/look-up-price has no variable 'x'/i);

    expect(guard.check({ id: '3', name: 'look-up-price', args: { sku: 'A-17' } }).action).toBe(
      'run',
    );
    guard.result('3', { output: { content: [{ type: 'text', text: '12.50' }] } });
    const noted = guard.check({ id: '4', name: 'place-order', args: { sku: 'A-17', note: 'x' } });
    expect(noted.action).toBe('refuse');
    expect(noted.message).toContain('place-order must be called without note');
    expect(noted.message).not.toContain('place_order');
  });

  it('lets a call by either name through, and the same spec checks unchanged', () => {
    for (const name of ['look-up-price', 'look_up_price']) {
      const guard = createGuard(shopSpec, shop, { now });
      expect(guard.check({ id: 'p', name, args: { sku: 'A-17' } }).action).toBe('run');
    }
  });
});

describe('withToolNames', () => {
  const examples = new URL('../../examples/', import.meta.url);
  const bankText = readFileSync(new URL('bank-transfer/spec.intent', examples), 'utf8');
  const bank = unwrap(
    loadToolSchema(readFileSync(new URL('bank-transfer/tools.json', examples), 'utf8')),
  );
  const sdkNames = { BankCheckBalance: 'bank_check_balance', BankTransfer: 'bank_transfer' };

  it('names the SDK tools in feedback and roadmaps; the spec keeps its names', () => {
    const guard = createGuard(bankText, withToolNames(bank, sdkNames), {
      now: '2025-03-14T12:00',
    });
    const early = guard.check({
      id: 't1',
      name: 'BankTransfer',
      args: { to: 'Alice', amount: 500 },
    });
    expect(early.action).toBe('refuse');
    expect(early.message).toContain('call bank_check_balance');
    // The result predicate is the spec's own name (BankCheckBalanceResult); no call names it.
    expect(early.message).not.toMatch(/call BankCheckBalance|call BankTransfer/);
    expect(guard.roadmap()).toContain('then call bank_transfer with to equal to "Alice"');
    // Calls by the spec's name (what intentguardToolOptions passes) and by the SDK's are one tool.
    for (const name of ['bank_check_balance', 'BankCheckBalance']) {
      const fresh = createGuard(bankText, withToolNames(bank, sdkNames), {
        now: '2025-03-14T12:00',
      });
      expect(fresh.check({ id: 'b', name, args: {} }).action).toBe('run');
    }
  });

  it('leaves the schema it was given alone', () => {
    withToolNames(bank, sdkNames);
    expect(bank.predicates.get('BankTransfer')?.sourceName).toBeUndefined();
  });

  it.each([
    [{ BankCheckBalanceResult: 'x' }, "'BankCheckBalanceResult' is not an action"],
    [{ Nope: 'x' }, "'Nope' is not an action"],
    [{ BankTransfer: '' }, 'printable text without spaces'],
    [{ BankTransfer: 'bank transfer' }, 'printable text without spaces'],
    [{ BankTransfer: 'bank\u202etransfer' }, 'printable text without spaces'],
    [{ BankTransfer: 'x'.repeat(129) }, '1 to 128 characters'],
    [{ BankTransfer: 'BankCheckBalance' }, "'BankCheckBalance' would name both"],
    [{ BankTransfer: 'same', BankCheckBalance: 'same' }, "'same' would name both"],
  ])('refuses %j', (names, message) => {
    expect(() => withToolNames(bank, names)).toThrow(message);
  });
});
