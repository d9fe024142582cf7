import { describe, expect, it } from 'vitest';
import { replayChecked } from './r2-review-tools.js';

/**
 * T4: a record argument with a field its schema does not declare was `invalid-proposal`
 * even where the tool's JSON Schema object allows more fields (agents echo richer objects
 * than tools declare; in the τ-bench replay it stopped a successful run). JSON Schema
 * objects are open unless `additionalProperties: false`: an open object's undeclared
 * fields are ignored — no spec can name them — except one whose name reads like a
 * declared field's (`Row` next to `row`: the tool may read it as that field). A closed
 * object, and the arguments object itself, still refuse an unknown field. The message
 * names the tool as written (`change_seats`, not `Change_seats`).
 */
const seatItems = (closed: boolean) => ({
  type: 'object',
  properties: { row: { type: 'number' }, letter: { type: 'string' } },
  required: ['row', 'letter'],
  ...(closed ? { additionalProperties: false } : {}),
});
const tools = (closed: boolean) => ({
  tools: [
    {
      name: 'change_seats',
      annotations: { destructiveHint: true },
      inputSchema: {
        type: 'object',
        properties: {
          booking_id: { type: 'string' },
          seats: { type: 'array', items: seatItems(closed) },
        },
        required: ['booking_id', 'seats'],
      },
    },
  ],
});
const spec = `@repeat
change_seats(booking_id = "B-31") -> Changed
Changed -> Done
reject change_seats(any(seats.row) > 40) because "rows end at 40"
`;
const change = (seats: unknown, extra: Record<string, unknown> = {}) => ({
  action: { name: 'change_seats', args: { booking_id: 'B-31', seats, ...extra } },
});
const invalid = { decision: 'revise', code: 'invalid-proposal' };

describe('T4: undeclared fields of open record arguments', () => {
  it('the review: an open object takes undeclared fields, and the spec still reads the declared ones', async () => {
    await replayChecked(
      spec,
      [
        {
          propose: change([{ row: 14, letter: 'C', price: 0, cabin: 'economy' }]),
          expect: 'allow',
        },
        {
          propose: change([{ row: 41, letter: 'C', price: 0 }]),
          expect: { decision: 'reject', code: 'guard-reject' },
        },
        // Declared fields are still read by their types and still required.
        { propose: change([{ row: 'fourteen', letter: 'C', cabin: 'x' }]), expect: invalid },
        { propose: change([{ letter: 'C', cabin: 'x' }]), expect: invalid },
      ],
      tools(false),
    );
  });

  it('a field whose name reads like a declared one stays invalid', async () => {
    const verdicts = await replayChecked(
      spec,
      [
        { propose: change([{ row: 14, letter: 'C', Row: 41 }]), expect: invalid },
        { propose: change([{ row: 14, letter: 'C', ROW: 41 }]), expect: invalid },
        { propose: change([{ row: 14, letter: 'C', ' r-o_w ': 41 }]), expect: invalid },
        { propose: change([{ row: 14, letter: 'C', 'ro\u200bw': 41 }]), expect: invalid },
        { propose: change([{ row: 14, letter: 'C', ｒｏｗ: 41 }]), expect: invalid },
      ],
      tools(false),
    );
    expect(verdicts[0]).toMatchObject({
      reasons: [
        {
          message:
            "change_seats.seats[0] has a field 'Row' that reads like its field 'row'; give it once, as 'row'.",
        },
      ],
    });
  });

  it('a closed object and the arguments object refuse an unknown field, naming the tool as written', async () => {
    const verdicts = await replayChecked(
      spec,
      [
        { propose: change([{ row: 14, letter: 'C', price: 0 }]), expect: invalid },
        { propose: change([{ row: 14, letter: 'C' }], { price: 0 }), expect: invalid },
        { propose: change([{ row: 14, letter: 'C' }]), expect: 'allow' },
      ],
      tools(true),
    );
    expect(verdicts[0]).toMatchObject({
      reasons: [{ message: "change_seats.seats[0] has no field 'price' (it takes row, letter)." }],
    });
    await replayChecked(
      spec,
      [{ propose: change([{ row: 14, letter: 'C' }], { price: 0 }), expect: invalid }],
      tools(false),
    );
  });
});
