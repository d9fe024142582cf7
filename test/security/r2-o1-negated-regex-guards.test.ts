import { describe, it } from 'vitest';
import { replayChecked } from './r2-review-tools.js';

/**
 * O1: in a guard, `x not matches /r/` held where the parts of the value mixed matching
 * and failing ones — also at spaces — so it held together with `x matches /r/`:
 * `reject AddStockItem(item_name not matches /sony/)` refused "Sony Bravia 55-inch TV",
 * and `not matches /FREQ=WEEKLY/` refused "RRULE:FREQ=WEEKLY;COUNT=4". Words are no
 * parts now, and a regex without `^`/`$` searches the whole text: its `not matches` is
 * the real negation. An anchored regex describes one whole value and still reads a list
 * of values part by part, as `!=` does (docs/language.md "Parts").
 */
const tools = {
  tools: [
    {
      name: 'AddStockItem',
      annotations: { destructiveHint: true },
      inputSchema: {
        type: 'object',
        properties: {
          item_name: { type: 'string' },
          category: { type: 'string' },
          quantity: { type: 'number' },
        },
        required: ['item_name', 'quantity'],
      },
    },
    {
      name: 'CreateEvent',
      annotations: { destructiveHint: true },
      inputSchema: {
        type: 'object',
        properties: { title: { type: 'string' }, recurrence: { type: 'string' } },
        required: ['title'],
      },
    },
    {
      name: 'SendMail',
      annotations: { destructiveHint: true },
      inputSchema: {
        type: 'object',
        properties: { to: { type: 'string' }, body: { type: 'string' } },
        required: ['to', 'body'],
      },
    },
  ],
};
const plan = `@repeat
AddStockItem() -> Added
@repeat
CreateEvent() -> Created
@repeat
SendMail() -> Mailed
Added -> Done
`;
const stock = (item_name: string) => ({
  action: {
    name: 'AddStockItem',
    args: { item_name, category: 'Electronics', quantity: 12 },
  },
});
const event = (recurrence: string) => ({
  action: { name: 'CreateEvent', args: { title: 'Sync', recurrence } },
});
const mail = (to: string) => ({ action: { name: 'SendMail', args: { to, body: 'Hi' } } });
const rejected = { decision: 'reject', code: 'guard-reject' };
const confirmed = { decision: 'confirm', code: 'guard-confirm' };

describe('O1: a guard never holds with both matches r and not matches r on one value', () => {
  it('the review (a1): the Sony TV is not refused by item_name not matches /sony/', async () => {
    await replayChecked(
      `${plan}reject AddStockItem(item_name not matches /sony/) because "only the Sony TV"`,
      [
        { propose: stock('Sony Bravia 55-inch TV'), expect: 'allow' },
        { propose: stock('Samsung 55-inch TV'), expect: rejected },
      ],
      tools,
    );
  });

  it('the review (a2): the Sony TV is confirmed by item_name matches /sony/', async () => {
    await replayChecked(
      `${plan}confirm AddStockItem(item_name matches /sony/) because "it is the Sony TV"`,
      [{ propose: stock('Sony Bravia 55-inch TV'), expect: confirmed }],
      tools,
    );
  });

  it('the review: the weekly RRULE is not refused by recurrence not matches /FREQ=WEEKLY/', async () => {
    await replayChecked(
      `${plan}reject CreateEvent(recurrence not matches /FREQ=WEEKLY/) because "the sync is weekly"`,
      [
        { propose: event('RRULE:FREQ=WEEKLY;COUNT=4'), expect: 'allow' },
        { propose: event('RRULE:FREQ=DAILY;COUNT=4'), expect: rejected },
      ],
      tools,
    );
  });

  it('an anchored regex and != still read an address list part by part', async () => {
    await replayChecked(
      `${plan}reject SendMail(to not matches /@company\\.com$/) because "company mail only"
reject SendMail(to != "alice@company.com", to != "bob@company.com") because "Alice or Bob only"`,
      [
        { propose: mail('bob@company.com'), expect: 'allow' },
        { propose: mail('evil@x.com, bob@company.com'), expect: rejected },
        { propose: mail('Evil <evil@x.com>; bob@company.com'), expect: rejected },
        { propose: mail('alice@company.com, carol@company.com'), expect: rejected },
      ],
      tools,
    );
  });
});
