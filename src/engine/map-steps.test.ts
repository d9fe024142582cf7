import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

import { checkSpec } from '../language/index.js';
import { parse } from '../language/parser.js';
import { print } from '../language/printer.js';
import { loadToolSchema } from '../schema/index.js';

/** `m.*` and `keys(m)` (LANGUAGE.md §9) on τ-bench's `get_user_details` result and its DB. */
const loaded = loadToolSchema(
  JSON.parse(
    readFileSync(new URL('../../examples/taubench/airline-tools.json', import.meta.url), 'utf8'),
  ),
  { id: 'airline' },
);
if (!loaded.ok) throw new Error('the airline tools do not load');
const schema = loaded.value;

describe('maps (LANGUAGE.md §9)', () => {
  it('parses and prints m.* and keys(m) as a fixed point', () => {
    const text =
      'get_user_detailsResult(count(keys(payment_methods)) >= 2, count(payment_methods.*[source = "certificate"]) = 2) -> Done\n';
    const parsed = parse(text);
    if (!parsed.ok) throw new Error('does not parse');
    const printed = print(parsed.value.ast);
    expect(printed).toContain('count(keys(payment_methods))');
    expect(printed).toContain('payment_methods.*[source = "certificate"]');
    const again = parse(printed);
    expect(again.ok && print(again.value.ast)).toBe(printed);
    const checked = checkSpec(text, schema);
    expect(checked.ok ? [] : checked.diagnostics.map((item) => item.code)).toEqual([]);
  });

  it('reports .* on a value that is not a json object', () => {
    const checked = checkSpec('get_user_detailsResult(email.* = "x") -> Done', schema);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.diagnostics.map((item) => item.code)).toContain('invalid-map');
  });
});
