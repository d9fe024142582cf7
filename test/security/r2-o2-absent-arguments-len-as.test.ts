import { describe, expect, it } from 'vitest';
import { replayChecked } from './r2-review-tools.js';

/**
 * O2: in a guard, `len(arg)` or `arg as T` on an optional argument that is not given made
 * the guard fire whatever the comparison: "descriptions stay under 2,000 characters"
 * refused every update that left the description out. In a guard only a negative
 * constraint holds on an absent argument (LANGUAGE.md §5.1) — with `len`, `as` or a path
 * too; a path into a value that is given but lacks the field is still a missing field
 * and fires (§7).
 */
const tools = {
  tools: [
    {
      name: 'UpdateListing',
      annotations: { destructiveHint: true },
      inputSchema: {
        type: 'object',
        properties: {
          listing_id: { type: 'string' },
          description: { type: 'string' },
          price: { type: 'number' },
          launch_date: { type: 'string' },
          details: { type: 'object' },
        },
        required: ['listing_id'],
      },
    },
  ],
};
const rules = `@repeat
UpdateListing(listing_id = "L-204") -> Updated
Updated -> Done
`;
const update = (args: Record<string, unknown>) => ({
  action: { name: 'UpdateListing', args: { listing_id: 'L-204', ...args } },
});
const rejected = { decision: 'reject', code: 'guard-reject' };

describe('O2: positive guards with len, as or a path do not fire on an absent argument', () => {
  it('the review: len(description) > 2000', async () => {
    await replayChecked(
      `${rules}reject UpdateListing(len(description) > 2000) because "descriptions stay under 2,000 characters"\n`,
      [
        { propose: update({ price: 39 }), expect: 'allow' },
        { propose: update({ description: null }), expect: 'allow' },
        { propose: update({ description: 'x'.repeat(2001) }), expect: rejected },
        { propose: update({ description: 'short' }), expect: 'allow' },
      ],
      tools,
    );
  });

  it('launch_date as date < 2025-01-01, and a failed coercion of a given value still fires', async () => {
    await replayChecked(
      `${rules}reject UpdateListing(launch_date as date < 2025-01-01)\n`,
      [
        { propose: update({}), expect: 'allow' },
        { propose: update({ launch_date: '2024-12-31' }), expect: rejected },
        { propose: update({ launch_date: '2025-02-01' }), expect: 'allow' },
        { propose: update({ launch_date: 'soon' }), expect: rejected },
      ],
      tools,
    );
  });

  it('negative constraints still fire on an absent argument', async () => {
    await replayChecked(
      `${rules}reject UpdateListing(len(description) != 10)\nreject UpdateListing(launch_date as date != 2025-03-01)\n`,
      [
        { propose: update({}), expect: rejected },
        { propose: update({ description: '0123456789' }), expect: rejected },
        {
          propose: update({ description: '0123456789', launch_date: '2025-03-01' }),
          expect: 'allow',
        },
      ],
      tools,
    );
  });

  it('a positive use of a binding on an absent argument does not fire; a negative one does', async () => {
    await replayChecked(
      `${rules}reject UpdateListing(listing_id = $l, description = $l) because "not the id again"\nreject UpdateListing(listing_id = $l, launch_date != $l, price > 100)\n`,
      [
        { propose: update({ price: 39 }), expect: 'allow' },
        { propose: update({ description: 'L-204' }), expect: rejected },
        { propose: update({ description: 'A lamp.' }), expect: 'allow' },
        { propose: update({ price: 120 }), expect: rejected },
        { propose: update({ price: 120, launch_date: 'L-204' }), expect: 'allow' },
      ],
      tools,
    );
  });

  it('a path into a given value that lacks the field is a missing field; into an absent one, not', async () => {
    const verdicts = await replayChecked(
      `${rules}reject UpdateListing(details.price > 100)\n`,
      [
        { propose: update({}), expect: 'allow' },
        { propose: update({ details: { price: 50 } }), expect: 'allow' },
        { propose: update({ details: { price: 150 } }), expect: rejected },
        { propose: update({ details: { colour: 'red' } }), expect: rejected },
      ],
      tools,
    );
    expect(verdicts).toHaveLength(4);
  });
});
