import { describe, expect, it } from 'vitest';
import { canonicalSpecText, checkSpec } from '../../src/language/index.js';
import { restaurantSchema, restaurantSpec, toolemuSchema } from './support/fixtures.js';

/**
 * Replies as LLMs really write them — fences, tags, prose around and after, Unicode
 * operators, smart quotes, VeriSafe's tuple syntax, numbered rules — must all yield
 * the same spec the formalizer would hand out; and values with commas must either
 * survive whole or be an error, never be cut short.
 */
const schema = restaurantSchema();
const expected = (() => {
  const result = checkSpec(restaurantSpec, schema);
  if (!result.ok) throw new Error('fixture does not check');
  return canonicalSpecText(result.value).replace(/^R\d: /gm, '');
})();

function canonical(reply: string): string {
  const result = checkSpec(reply, schema);
  if (!result.ok)
    throw new Error(result.diagnostics.map((diagnostic) => diagnostic.message).join('; '));
  return canonicalSpecText(result.value);
}

const replies: Record<string, string> = {
  'GPT-style: prose, an untagged fence, numbered rules with Unicode, explanation after': `Here's the formal specification for your instruction:

\`\`\`
1. RestaurantInfo(name="R") ∧ ReserveInfo(date=today, time<19:00, available=true) → Reserve()
2. Reserve() ∧ ReserveResult(success=true) → Done()
3. RestaurantInfo(name="R") ∧ ReserveInfo(date=today, time<19:00, available=false) → Done()
\`\`\`

**Explanation:**
- Rule 1 reserves when a table is free before 7 PM.
- Rule 3 ends the task without reserving otherwise.`,
  'VeriSafe-style: <CHC> tags, tuple constraints, smart quotes': `<CHC>
1. RestaurantInfo(name=“R”) ∧ ReserveInfo(date=(today, =), time=(19:00, <), available=(true, =)) → Reserve()
2. Reserve() ∧ ReserveResult(success=(true, =)) → Done()
3. RestaurantInfo(name=“R”) ∧ ReserveInfo(date=(today, =), time=(19:00, <), available=(false, =)) → Done()
</CHC>`,
  'Claude-style: <spec> tags between paragraphs': `I'll formalize this instruction into rules.

<spec>
RestaurantInfo(name = "R") & ReserveInfo(date = today, time < 19:00, available = true) -> Reserve
Reserve & ReserveResult(success = true) -> Done
RestaurantInfo(name = "R") & ReserveInfo(date = today, time < 19:00, available = false) -> Done
</spec>

This spec makes sure the agent only reserves restaurant R before 7 PM, and stops otherwise.`,
  'a JSON schema excerpt first, then the spec in an intent fence': `The relevant state is:
\`\`\`json
{ "ReserveInfo": { "time": "Time" } }
\`\`\`
and the spec:
\`\`\`intent
RestaurantInfo(name = "R") & ReserveInfo(date = today, time < 19:00, available = true) => Reserve;
Reserve & ReserveResult(success = true) => Done;
RestaurantInfo(name = "R") & ReserveInfo(date = today, time < 19:00, available = false) => Done;
\`\`\``,
  'bare rules with words for "and" and a closing sentence': `RestaurantInfo(name = 'R') and ReserveInfo(date = today, time < 19:00, available = true) -> Reserve
Reserve and ReserveResult(success = true) -> Done
RestaurantInfo(name = 'R') and ReserveInfo(date = today, time < 19:00, available = false) -> Done
This covers both branches of the instruction.`,
};

describe('messy LLM replies', () => {
  for (const [name, reply] of Object.entries(replies)) {
    it(`${name} yields the intended spec`, () => {
      expect(canonical(reply)).toBe(expected);
    });
  }

  it('keeps a quoted value with commas whole', () => {
    const result = checkSpec(
      '```intent\nRestaurantInfo(name = "Pizza, Pasta & Co.") -> Reserve\nReserve -> Done\n```',
      schema,
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const constraint = result.value.rules[0]?.states[0]?.constraints[0];
    expect(constraint?.value).toEqual({ kind: 'text', value: 'Pizza, Pasta & Co.' });
  });

  it('reports an unquoted value with commas instead of cutting it at the comma', () => {
    const result = checkSpec(
      'RestaurantInfo(name = Pizza, Pasta) -> Reserve\nReserve -> Done',
      schema,
    );
    expect(result.ok).toBe(false);
    expect(result.diagnostics.some((diagnostic) => diagnostic.severity === 'error')).toBe(true);
  });

  it('reports a thousands separator in a number instead of reading 1', () => {
    const tools = toolemuSchema(['BankManager']);
    const result = checkSpec(
      'BankManagerTransferFunds(amount = 1,000) -> Sent\nSent -> Done',
      tools,
    );
    expect(result.ok).toBe(false);
    expect(
      result.diagnostics
        .map((diagnostic) => `${diagnostic.message} ${diagnostic.hint ?? ''}`)
        .join(' '),
    ).toMatch(/1,000|1000|separator/);
  });

  it('finds nothing to hand out in a refusal', () => {
    const result = checkSpec("I'm sorry, but I can't help with formalizing this request.", schema);
    expect(result.ok).toBe(false);
  });
});
