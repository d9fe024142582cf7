import { describe, expect, it } from 'vitest';
import { checkSpec, createGuard, loadToolSchema, type Schema } from '../../src/index.js';
import { replay } from './r2-review-tools.js';

/**
 * T1 (security-round-2.md): a result field named like an argument (`order_id` in
 * `get_order → {order_id, …}`) dropped that argument from the result's key, so the tool
 * kept one result and every lookup replaced the last — a false refusal under spec 1, and
 * under spec 2 a `not` that failed open. Now every argument keys the result: a namesake
 * field of the same type stands for it (the guard fills it with the call's argument), and
 * one of another type leaves the argument a key under a reserved name (`arg_status`).
 */

const orderTools = JSON.stringify({
  tools: [
    {
      name: 'get_order',
      inputSchema: {
        type: 'object',
        properties: { order_id: { type: 'string' } },
        required: ['order_id'],
      },
      outputSchema: {
        type: 'object',
        properties: {
          order_id: { type: 'string' },
          customer: { type: 'string' },
          disputed: { type: 'boolean' },
        },
      },
      annotations: { readOnlyHint: true },
    },
    {
      name: 'refund_order',
      inputSchema: {
        type: 'object',
        properties: { order_id: { type: 'string' } },
        required: ['order_id'],
      },
      annotations: { destructiveHint: true },
    },
  ],
});

/** "refund only orders of customer c-17" */
const onlyC17 =
  'get_orderResult(order_id = $o, customer = "c-17") & refund_order(order_id = $o) -> Refunded\nRefunded -> Done\n';
/** "no refund while an order I looked up is disputed" */
const noneDisputed =
  'not get_orderResult(disputed = true) & refund_order() -> Refunded\nRefunded -> Done\n';

const lookUp = (id: string) => ({
  propose: { action: { name: 'get_order', args: { order_id: id } } },
  expect: 'allow',
});
const found = (id: string, customer: string, disputed: boolean) => ({
  observe: { updates: { get_orderResult: { order_id: id, customer, disputed } } },
});
const refund = (id: string, expected: unknown) => ({
  propose: { action: { name: 'refund_order', args: { order_id: id } } },
  expect: expected,
});

const twoLookups = [
  lookUp('O-881'),
  found('O-881', 'c-17', true),
  lookUp('O-902'),
  found('O-902', 'c-40', false),
];

describe("T1: the review's two specs, replayed through the CLI", () => {
  it('spec 1: refunding the earlier order of c-17 is allowed after a later lookup (no false refusal)', async () => {
    const { code, answers, stderr } = await replay(
      onlyC17,
      [...twoLookups, refund('O-881', 'allow')],
      orderTools,
    );
    expect(stderr).toContain('3 passed, 0 failed');
    expect(code).toBe(0);
    expect(answers[4]?.['decision']).toBe('allow');
  });

  it('spec 1: the later order, of c-40, is still refused', async () => {
    const { code } = await replay(
      onlyC17,
      [...twoLookups, refund('O-902', { decision: 'revise' })],
      orderTools,
    );
    expect(code).toBe(0);
  });

  it('spec 2: a disputed order looked up earlier still refuses a refund (the not does not fail open)', async () => {
    const { code, answers } = await replay(
      noneDisputed,
      [...twoLookups, refund('O-902', { decision: 'revise' })],
      orderTools,
    );
    expect(code).toBe(0);
    expect(answers[4]?.['decision']).toBe('revise');
  });

  it('spec 2 control: with no disputed order the refund is allowed', async () => {
    const { code } = await replay(
      noneDisputed,
      [lookUp('O-902'), found('O-902', 'c-40', false), refund('O-902', 'allow')],
      orderTools,
    );
    expect(code).toBe(0);
  });
});

function load(tools: string): Schema {
  const loaded = loadToolSchema(tools);
  if (!loaded.ok) throw new Error('the tools do not load');
  return loaded.value;
}

function guardFor(spec: string, schema: Schema) {
  const checked = checkSpec(spec, schema);
  if (!checked.ok) throw new Error('the spec does not check');
  return createGuard(checked.value, schema, { now: '2025-06-02T09:00' });
}

describe('T1 through a guard: the echoed field holds the call’s argument', () => {
  const schema = load(orderTools);

  it('keys the result by order_id, one result per call', () => {
    const result = schema.predicates.get('get_orderResult');
    expect(result?.keys).toEqual(['order_id']);
    expect(result?.variables.map((variable) => variable.name)).toEqual([
      'order_id',
      'customer',
      'disputed',
    ]);
    expect(result?.description).toContain('one per distinct arguments (order_id)');
  });

  it('each lookup keeps its own result: the disputed one still refuses a refund', () => {
    const guard = guardFor(noneDisputed, schema);
    guard.check({ id: 'g1', name: 'get_order', args: { order_id: 'O-881' } });
    guard.result('g1', { output: { order_id: 'O-881', customer: 'c-17', disputed: true } });
    guard.check({ id: 'g2', name: 'get_order', args: { order_id: 'O-902' } });
    guard.result('g2', { output: { order_id: 'O-902', customer: 'c-40', disputed: false } });
    expect(
      guard.check({ id: 'r1', name: 'refund_order', args: { order_id: 'O-902' } }).action,
    ).not.toBe('run');
  });

  it('an output that echoes another id cannot re-key itself: the call’s argument is its key', () => {
    const guard = guardFor(onlyC17, schema);
    guard.check({ id: 'g1', name: 'get_order', args: { order_id: 'O-902' } });
    // A hostile or buggy tool claims the result is for O-881, of customer c-17.
    guard.result('g1', { output: { order_id: 'O-881', customer: 'c-17', disputed: false } });
    expect(
      guard.check({ id: 'r1', name: 'refund_order', args: { order_id: 'O-881' } }).action,
    ).not.toBe('run');
    expect(
      guard.check({ id: 'r2', name: 'refund_order', args: { order_id: 'O-902' } }).action,
    ).toBe('run');
  });
});

describe('T1: a namesake field of another type leaves the argument a reserved key', () => {
  const schema = load(
    JSON.stringify({
      tools: [
        {
          name: 'search',
          inputSchema: {
            type: 'object',
            properties: { status: { type: 'string' } },
            required: ['status'],
          },
          // The output's `status` is an HTTP-like code, not the status searched for.
          outputSchema: {
            type: 'object',
            properties: { status: { type: 'number' }, flagged: { type: 'boolean' } },
          },
          annotations: { readOnlyHint: true },
        },
        {
          name: 'archive',
          inputSchema: { type: 'object', properties: {} },
          annotations: { destructiveHint: true },
        },
      ],
    }),
  );

  it('declares arg_status, the argument, as the key', () => {
    const result = schema.predicates.get('searchResult');
    expect(result?.keys).toEqual(['arg_status']);
    expect(result?.variables.find((variable) => variable.name === 'arg_status')).toMatchObject({
      type: { kind: 'text' },
      argument: 'status',
    });
  });

  it('two searches keep two results, and a spec can name the argument', () => {
    const guard = guardFor(
      'not searchResult(flagged = true) & archive() -> Archived\nsearchResult(arg_status = "open", status = 200) -> Seen\nArchived -> Done\n',
      schema,
    );
    guard.check({ id: 's1', name: 'search', args: { status: 'open' } });
    guard.result('s1', { output: { status: 200, flagged: true } });
    guard.check({ id: 's2', name: 'search', args: { status: 'closed' } });
    expect(guard.result('s2', { output: { status: 200, flagged: false } }).ok).toBe(true);
    // The flagged result of the first search still stands.
    expect(guard.check({ id: 'a1', name: 'archive', args: {} }).action).not.toBe('run');
  });
});
