import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkSpec, createSession, loadToolSchema, unwrap } from '../../src/index.js';
import { replayChecked, reviewNow } from './r2-review-tools.js';

/**
 * T2: `unmet-conditions` named a constraint that holds (`get_memberResult`'s
 * `birth_date = $d`) when the one that failed was a filter comparing with a binding
 * (`reserve`'s `legs[code = $c]`): the agent was sent toward the wrong fix, and after
 * three refusals a person was shown the same wrong reason. The reason names the failing
 * constraint with what it expected — the binding's value — and what was given
 * (LANGUAGE.md §6 step 4).
 */
const tools = {
  tools: [
    {
      name: 'get_member',
      annotations: { readOnlyHint: true },
      inputSchema: {
        type: 'object',
        properties: { member_id: { type: 'string' } },
        required: ['member_id'],
      },
      outputSchema: { type: 'object', properties: { birth_date: { type: 'string' } } },
    },
    {
      name: 'get_plan',
      annotations: { readOnlyHint: true },
      inputSchema: {
        type: 'object',
        properties: { plan_id: { type: 'string' } },
        required: ['plan_id'],
      },
      outputSchema: {
        type: 'object',
        properties: {
          legs: {
            type: 'array',
            items: {
              type: 'object',
              properties: { code: { type: 'string' } },
              required: ['code'],
            },
          },
        },
      },
    },
    {
      name: 'reserve',
      annotations: { destructiveHint: true },
      inputSchema: {
        type: 'object',
        properties: {
          birth_date: { type: 'string' },
          legs: {
            type: 'array',
            items: {
              type: 'object',
              properties: { code: { type: 'string' } },
              required: ['code'],
            },
          },
        },
        required: ['birth_date', 'legs'],
      },
    },
  ],
};
const spec = `get_memberResult(member_id = "m-5", birth_date = $d) & get_planResult(plan_id = "p-9", legs[code = $c]) & reserve(birth_date = $d, legs[code = $c]) -> Reserved
Reserved -> Done
`;
const observed = [
  {
    observe: { updates: { get_memberResult: { member_id: 'm-5', birth_date: '1984-02-29' } } },
  },
  {
    observe: { updates: { get_planResult: { plan_id: 'p-9', legs: [{ code: 'ZX410' }] } } },
  },
];
const reserve = (birth_date: string, code: string) => ({
  action: { name: 'reserve', args: { birth_date, legs: [{ code }] } },
});
const refused = { decision: 'revise', code: 'unmet-conditions' };

describe('T2: unmet-conditions names the constraint that failed', () => {
  it('the review: the leg code, with the bound value and the one given', async () => {
    const verdicts = await replayChecked(
      spec,
      [
        ...observed,
        { propose: reserve('1984-02-29', 'ZX777'), expect: refused },
        { propose: reserve('1984-02-29', 'ZX410'), expect: 'allow' },
      ],
      tools,
    );
    expect(verdicts[2]).toMatchObject({
      reasons: [
        {
          code: 'unmet-conditions',
          predicate: 'reserve',
          variable: 'legs',
          expected: 'some element of legs[code = $c] with $c = "ZX410"',
          actual: expect.stringContaining('ZX777'),
        },
      ],
    });
    const [reason] = (verdicts[2]?.['reasons'] ?? []) as { message: string }[];
    expect(reason?.message).toContain(
      'reserve must be called with some element of legs[code = $c]',
    );
    expect(reason?.message).toContain('"ZX410"');
  });

  it('names the birth date when that is what differs', async () => {
    const verdicts = await replayChecked(
      spec,
      [...observed, { propose: reserve('1984-03-01', 'ZX410'), expect: refused }],
      tools,
    );
    expect(verdicts[2]).toMatchObject({
      reasons: [
        {
          predicate: 'reserve',
          variable: 'birth_date',
          expected: '= $d',
          actual: '"1984-03-01"',
        },
      ],
    });
  });

  it('escalation after three refusals shows a person the failing constraint', async () => {
    const verdicts = await replayChecked(
      spec,
      [
        ...observed,
        { propose: reserve('1984-02-29', 'ZX777'), expect: refused },
        { propose: reserve('1984-02-29', 'ZX777'), expect: refused },
        { propose: reserve('1984-02-29', 'ZX777'), expect: refused },
        {
          propose: reserve('1984-02-29', 'ZX777'),
          expect: { decision: 'confirm', code: 'repeated-violation' },
        },
      ],
      tools,
    );
    const [reason] = (verdicts[5]?.['reasons'] ?? []) as { message: string }[];
    expect(reason?.message).toContain('legs[code = $c]');
    expect(reason?.message).not.toContain('get_memberResult');
  });
});

describe('T2 as a class: the reason names a constraint that fails', () => {
  const schema = unwrap(loadToolSchema(JSON.stringify(tools)));
  const checked = checkSpec(spec, schema);
  if (!checked.ok) throw new Error('the T2 spec does not check');
  const code = fc.constantFrom('ZX410', 'ZX411', 'AB100', 'zx410 ');
  const date = fc.constantFrom('1984-02-29', '1984-03-01', '1990-01-01');

  it('for random plans and proposals, every unmet-conditions reason is on what differs', () => {
    fc.assert(
      fc.property(
        date,
        fc.uniqueArray(code, { minLength: 1, maxLength: 3 }),
        date,
        fc.array(code, { minLength: 1, maxLength: 2 }),
        (born, planned, given, chosen) => {
          const session = createSession(checked.value, { now: reviewNow });
          session.observe({
            updates: { get_memberResult: { member_id: 'm-5', birth_date: born } },
          });
          session.observe({
            updates: {
              get_planResult: { plan_id: 'p-9', legs: planned.map((leg) => ({ code: leg })) },
            },
          });
          const verdict = session.propose({
            action: {
              name: 'reserve',
              args: { birth_date: given, legs: chosen.map((leg) => ({ code: leg })) },
            },
          });
          const dateDiffers = born !== given;
          // Rules compare normalized text: `zx410 ` is `ZX410`.
          const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();
          const legsDiffer = !chosen.some((leg) => planned.some((code) => same(code, leg)));
          if (!dateDiffers && !legsDiffer) {
            expect(verdict.decision).toBe('allow');
            return;
          }
          expect(verdict.decision).toBe('revise');
          // The observed results hold: a reason never blames them.
          for (const reason of verdict.reasons) {
            expect(reason).toMatchObject({ code: 'unmet-conditions', predicate: 'reserve' });
            expect(reason.variable === 'birth_date' ? dateDiffers : legsDiffer).toBe(true);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
