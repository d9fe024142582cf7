import { describe, expect, it } from 'vitest';
import { analyzeSpec } from '../language/analyze.js';
import { compiledPathChecks as pathCheck } from '../language/check-compiled-paths.js';
import { checkSpec, createSchema, parse, print } from '../language/index.js';
import { readCompiledSpec } from '../language/read-compiled-spec.js';
import { compileRegex } from '../language/regex.js';
import { writeCompiledSpec } from '../language/write-compiled-spec.js';
import { createSession } from './session-all-parts.js';

/**
 * Bindings inside filters and arithmetic chains (LANGUAGE.md §7): the fields of one list
 * element bound together, filters that compare with bound values, and computed values.
 */

const products = {
  name: 'products',
  type: { kind: 'list', element: 'text' },
  jsonText: true,
  description: 'The products found; each has id, name, price and stock.',
} as const;

const schema = createSchema('shop', [
  {
    name: 'ProductsResult',
    kind: 'state',
    description: 'The products the last search found.',
    variables: [products],
    keys: [],
    critical: false,
    observed: true,
  },
  {
    name: 'Budget',
    kind: 'state',
    description: 'What the user may spend.',
    variables: [
      { name: 'max', type: { kind: 'number' } },
      { name: 'extra', type: { kind: 'number' } },
    ],
    keys: [],
    critical: false,
    observed: true,
  },
  {
    name: 'Me',
    kind: 'state',
    description: 'The current user.',
    variables: [{ name: 'user', type: { kind: 'text' } }],
    keys: [],
    critical: false,
    observed: true,
  },
  {
    name: 'FilesResult',
    kind: 'state',
    description: 'The files found.',
    variables: [
      {
        name: 'files',
        type: { kind: 'list', element: 'text' },
        jsonText: true,
        description: 'Each file has path and owner.',
      },
    ],
    keys: [],
    critical: false,
    observed: true,
  },
  {
    name: 'Flight',
    kind: 'state',
    description: 'The booked flight.',
    variables: [{ name: 'departure', type: { kind: 'datetime' } }],
    keys: [],
    critical: false,
    observed: true,
  },
  {
    name: 'BuyProduct',
    kind: 'action',
    description: 'Buys one product.',
    variables: [
      { name: 'id', type: { kind: 'text' }, required: true },
      { name: 'price', type: { kind: 'number' } },
      { name: 'items', type: { kind: 'list', element: 'text' }, jsonText: true },
    ],
    keys: [],
    critical: true,
  },
  {
    name: 'DeleteFiles',
    kind: 'action',
    description: 'Deletes files.',
    variables: [{ name: 'pattern', type: { kind: 'text' }, required: true }],
    keys: [],
    critical: true,
  },
  {
    name: 'SetReminder',
    kind: 'action',
    description: 'Sets a reminder.',
    variables: [{ name: 'at', type: { kind: 'datetime' }, required: true }],
    keys: [],
    critical: false,
  },
]);

const now = '2025-03-14T12:00';

/** A session; its action rules may repeat, since the tests propose several times in one. */
function session(text: string) {
  const repeated = text.replace(/^(\s*)(?!reject|confirm)(.*-> (?!Done)\w+)$/gm, '$1@repeat\n$1$2');
  const checked = checkSpec(repeated, schema);
  if (!checked.ok) throw new Error(JSON.stringify(checked.diagnostics, null, 1));
  return createSession(checked.value, { now });
}

const codes = (text: string) => analyzeSpec(text, schema).map((diagnostic) => diagnostic.code);

const catalogue = [
  { id: 'x11', name: 'USB cable', price: 9, stock: 3 },
  { id: 'x12', name: 'Laptop stand', price: 50, stock: 1 },
  { id: 'x13', name: 'Laptop bag', price: 25, stock: 0 },
];

const buy = (id: string, price?: number) => ({
  action: { name: 'BuyProduct', args: price === undefined ? { id } : { id, price } },
});

describe('binders inside a filter tie the fields of one element', () => {
  const tied = `
    ProductsResult(products[name contains "laptop", id = $id, price = $p]) & BuyProduct(id = $id, price <= $p) -> Bought
    Bought -> Done`;

  it('binds id and price from the same product', () => {
    const s = session(tied);
    s.observe({ updates: { ProductsResult: { products: catalogue } } });
    expect(s.propose(buy('x12', 50)).decision).toBe('allow');
    expect(s.propose(buy('x13', 25)).decision).toBe('allow');
    // The stand's id with the bag's price: each exists, but not in one product.
    expect(s.propose(buy('x13', 50)).decision).toBe('revise');
    // A product the filter does not select.
    expect(s.propose(buy('x11', 9)).decision).toBe('revise');
  });

  it('without the tie, projections bind from any matching element (the old limit)', () => {
    const s = session(`
      ProductsResult(products[name contains "laptop"].id = $id) & ProductsResult(products[name contains "laptop"].price = $p) & BuyProduct(id = $id, price <= $p) -> Bought
      Bought -> Done`);
    s.observe({ updates: { ProductsResult: { products: catalogue } } });
    expect(s.propose(buy('x13', 50)).decision).toBe('allow');
  });

  it('a binding filter followed by a path compares that one element', () => {
    const s = session(`
      ProductsResult(any(products[name contains "laptop", id = $id].stock) > 0) & BuyProduct(id = $id) -> Bought
      Bought -> Done`);
    s.observe({ updates: { ProductsResult: { products: catalogue } } });
    expect(s.propose(buy('x12')).decision).toBe('allow');
    expect(s.propose(buy('x13')).decision).toBe('revise');
  });

  it('binds from an earlier field of the same filter and compares later ones with it', () => {
    const s = session(`
      ProductsResult(products[price = $p, stock > $p, id = $id]) & BuyProduct(id = $id) -> Bought
      Bought -> Done`);
    s.observe({
      updates: {
        ProductsResult: {
          products: [...catalogue, { id: 'x14', name: 'Laptop sleeve', price: 2, stock: 5 }],
        },
      },
    });
    expect(s.propose(buy('x14')).decision).toBe('allow');
    expect(s.propose(buy('x11')).decision).toBe('revise');
  });

  it('names the values in feedback, with the computed bound', () => {
    const s = session(`
      ProductsResult(products[name contains "stand", id = $id, price = $p]) & BuyProduct(id = $id, price <= $p * 0.5 + 10) -> Bought
      Bought -> Done`);
    s.observe({ updates: { ProductsResult: { products: catalogue } } });
    expect(s.propose(buy('x12', 35)).decision).toBe('allow');
    const refused = s.propose(buy('x12', 40));
    expect(refused.decision).toBe('revise');
    expect(refused.feedback).toContain('$p * 0.5 + 10 = 35');
    expect(refused.feedback).toContain('products[…].price of ProductsResult (50)');
    expect(refused.feedback).toContain('$id = "x12"');
    expect(refused.feedback).toContain('it is 40');
  });

  it('has no assignment when nothing was observed or no element matches', () => {
    const s = session(tied);
    expect(s.propose(buy('x12', 50)).decision).toBe('revise');
    s.observe({ updates: { ProductsResult: { products: [] } } });
    const refused = s.propose(buy('x12', 50));
    expect(refused.decision).toBe('revise');
    s.observe({ updates: { ProductsResult: { products: 'not a list' } } });
    expect(s.propose(buy('x12', 50)).decision).toBe('revise');
  });

  it('stops at the join bound: a rule does not fire, a guard fires', () => {
    const many = Array.from({ length: 2_000 }, (_, index) => ({
      id: `p${index}`,
      name: 'laptop',
      price: index,
    }));
    // Every id against every price: beyond maxJoinWork before the matching pair.
    const rule = session(`
      ProductsResult(products[name contains "laptop", id = $id]) & ProductsResult(products[price = $p]) & BuyProduct(id = $id, price = $p) -> Bought
      Bought -> Done`);
    rule.observe({ updates: { ProductsResult: { products: many } } });
    const refused = rule.propose(buy('p1999', 1999));
    expect(refused.decision).toBe('revise');
    expect(refused.feedback).toContain('too many steps');
    const guard = session(`
      reject BuyProduct(items[name = $a], items[id = $b], id = $a) because "a name given as the id"
      BuyProduct() -> Bought
      Bought -> Done`);
    const items = Array.from({ length: 1_000 }, (_, index) => ({
      id: `i${index}`,
      name: `n${index}`,
    }));
    expect(
      guard.propose({
        action: { name: 'BuyProduct', args: { id: 'x', items } },
      }).decision,
    ).toBe('reject');
    expect(
      guard.propose({
        action: {
          name: 'BuyProduct',
          args: { id: 'x', items: items.slice(0, 5) },
        },
      }).decision,
    ).toBe('allow');
  });
});

describe('filters that use bindings compare under the current assignment', () => {
  it('results[price <= $max] selects with the bound budget', () => {
    const s = session(`
      Budget(max = $max) & ProductsResult(products[price <= $max].id = $id) & BuyProduct(id = $id) -> Bought
      Bought -> Done`);
    s.observe({ updates: { ProductsResult: { products: catalogue }, Budget: { max: 30 } } });
    expect(s.propose(buy('x13')).decision).toBe('allow');
    expect(s.propose(buy('x12')).decision).toBe('revise');
    s.observe({ updates: { Budget: { max: 60 } } });
    expect(s.propose(buy('x12')).decision).toBe('allow');
  });

  it('count(files[owner != $me]) = 0: only when every file is mine', () => {
    const s = session(`
      Me(user = $me) & FilesResult(count(files[owner != $me]) = 0) & DeleteFiles() -> Deleted
      Deleted -> Done`);
    const del = { action: { name: 'DeleteFiles', args: { pattern: '*.tmp' } } };
    s.observe({
      updates: {
        Me: { user: 'ann' },
        FilesResult: {
          files: [
            { path: 'a.tmp', owner: 'ann' },
            { path: 'b.tmp', owner: 'bob' },
          ],
        },
      },
    });
    expect(s.propose(del).decision).toBe('revise');
    s.observe({ updates: { FilesResult: { files: [{ path: 'a.tmp', owner: 'ann' }] } } });
    expect(s.propose(del).decision).toBe('allow');
  });

  it('each and not compare under the assignment', () => {
    const spec = `
      Me(user = $me) & FilesResult(each(files[path contains ".tmp"].owner) = $me) & not FilesResult(files[owner = "root", path = $me]) & DeleteFiles() -> Deleted
      Deleted -> Done`;
    const s = session(spec);
    const del = { action: { name: 'DeleteFiles', args: { pattern: '*.tmp' } } };
    s.observe({
      updates: {
        Me: { user: 'ann' },
        FilesResult: {
          files: [
            { path: 'a.tmp', owner: 'ann' },
            { path: 'notes', owner: 'bob' },
          ],
        },
      },
    });
    expect(s.propose(del).decision).toBe('allow');
    s.observe({
      updates: {
        FilesResult: {
          files: [
            { path: 'a.tmp', owner: 'ann' },
            { path: 'ann', owner: 'root' },
          ],
        },
      },
    });
    expect(s.propose(del).decision).toBe('revise');
  });

  it('a guard reads a filter that uses a binding from the same action', () => {
    const s = session(`
      reject BuyProduct(id = $id, items[id = $id, price > 100]) because "the expensive one itself"
      BuyProduct() -> Bought
      Bought -> Done`);
    const items = [
      { id: 'a', price: 500 },
      { id: 'b', price: 5 },
    ];
    const propose = (id: string) =>
      s.propose({ action: { name: 'BuyProduct', args: { id, items } } }).decision;
    expect(propose('a')).toBe('reject');
    expect(propose('b')).toBe('allow');
  });

  it('a guard whose binder has no value fires, also when a filter under count compares with it', () => {
    // "Refuse a purchase that no item of the order prices at or above": with the price left
    // out, the filter cannot compare — the guard must fire, not count every item as kept.
    const s = session(`
      reject BuyProduct(price = $p, count(items[price >= $p]) = 0) because "no item covers the price"
      BuyProduct() -> Bought
      Bought -> Done`);
    const items = [{ id: 'a', price: 5 }];
    const propose = (args: Record<string, unknown>) =>
      s.propose({ action: { name: 'BuyProduct', args: { id: 'a', items, ...args } } }).decision;
    expect(propose({ price: 50 })).toBe('reject');
    expect(propose({ price: 5 })).toBe('allow');
    expect(propose({})).toBe('reject');
    // A rule reads the filter strictly: without the price it does not hold.
    const rule = session(`
      BuyProduct(price = $p, count(items[price >= $p]) = 0) -> Bought
      Bought -> Done`);
    expect(
      rule.propose({ action: { name: 'BuyProduct', args: { id: 'a', items } } }).decision,
    ).toBe('revise');
  });
});

describe('long lists (read through a per-list element table)', () => {
  // Ten products, only some of them laptops: the join reads each element's filter results
  // and bound values once per list, and must still bind only from elements that pass.
  const long = Array.from({ length: 10 }, (_, index) => ({
    id: `p${index}`,
    name: index % 3 === 0 ? `Laptop ${index}` : `Cable ${index}`,
    price: 10 * (index + 1),
    stock: index % 2,
  }));

  it('binds only from elements that pass the filter, proposal after proposal', () => {
    const s = session(`
      ProductsResult(products[name contains "laptop", id = $id, price = $p]) & BuyProduct(id = $id, price <= $p) -> Bought
      Bought -> Done`);
    s.observe({ updates: { ProductsResult: { products: long } } });
    for (let round = 0; round < 2; round++) {
      expect(s.propose(buy('p9', 100)).decision).toBe('allow');
      expect(s.propose(buy('p3', 40)).decision).toBe('allow');
      // p4 is a cable: it exists, but does not pass the filter.
      expect(s.propose(buy('p4', 10)).decision).toBe('revise');
      // p3's id with p9's price: each passes, but not as one element.
      expect(s.propose(buy('p3', 100)).decision).toBe('revise');
    }
  });

  it('a filter that uses a binding compares each element with it', () => {
    const s = session(`
      Budget(max = $m) & ProductsResult(count(products[price <= $m, stock = 1]) >= 3) & BuyProduct() -> Bought
      Bought -> Done`);
    s.observe({ updates: { ProductsResult: { products: long }, Budget: { max: 60 } } });
    // In stock at or under 60: p1 (20), p3 (40), p5 (60).
    expect(s.propose(buy('p1')).decision).toBe('allow');
    s.observe({ updates: { Budget: { max: 50 } } });
    expect(s.propose(buy('p1')).decision).toBe('revise');
  });

  it('each session reads with its own clock', () => {
    const dated = Array.from({ length: 10 }, (_, index) => ({
      id: `d${index}`,
      day: `2025-03-${String(10 + index).padStart(2, '0')}`,
    }));
    const text = `
      ProductsResult(products[day as date = today, id = $id]) & BuyProduct(id = $id) -> Bought
      Bought -> Done`;
    const checked = checkSpec(text.replace(/^(\s*)(Products.*)$/m, '$1@repeat\n$1$2'), schema);
    if (!checked.ok) throw new Error(JSON.stringify(checked.diagnostics));
    const on = (day: string) => {
      const s = createSession(checked.value, { now: `${day}T12:00` });
      s.observe({ updates: { ProductsResult: { products: dated } } });
      return s;
    };
    const first = on('2025-03-14');
    const second = on('2025-03-15');
    expect(first.propose(buy('d4')).decision).toBe('allow');
    expect(second.propose(buy('d4')).decision).toBe('revise');
    expect(second.propose(buy('d5')).decision).toBe('allow');
    expect(first.propose(buy('d5')).decision).toBe('revise');
  });
});

describe('the checker on bindings inside filters', () => {
  it('accepts uses and binders where a filter stands for one element', () => {
    expect(
      codes(
        'ProductsResult(products[name ~ "x", id = $id, price = $p]) & BuyProduct(id = $id, price <= $p) -> B\nB -> Done',
      ),
    ).toEqual([]);
    expect(
      codes('Budget(max = $m) & ProductsResult(count(products[price <= $m]) >= 2) -> B\nB -> Done'),
    ).toEqual([]);
  });

  it('refuses binders under count, len, each, not and in nested filters (binding-in-filter)', () => {
    for (const body of [
      'ProductsResult(count(products[id = $id]) = 1)',
      'ProductsResult(each(products[id = $id].price) > 1)',
      'ProductsResult(len(products[id = $id]) > 1)',
      'Budget(max = $m) & not ProductsResult(products[id = $id, price = $m])',
      'ProductsResult(products[name ~ "x", items[id = $id]])',
    ]) {
      const diagnostics = analyzeSpec(`${body} & BuyProduct(id = $id) -> B\nB -> Done`, schema);
      const found = diagnostics.find((diagnostic) => diagnostic.code === 'binding-in-filter');
      expect(found, body).toBeDefined();
      expect(body.slice((found?.range?.start.column ?? 1) - 1)).toMatch(/^\$id/);
    }
  });

  it('reports a use before anything binds it', () => {
    expect(
      codes('ProductsResult(products[price <= $max]) & Budget(max = $max) -> B\nB -> Done'),
    ).toContain('unbound-variable');
  });
});

describe('arithmetic chains', () => {
  it('parses with precedence and prints back with the parentheses it needs', () => {
    for (const [text, canonical] of [
      ['A(x <= $b * 0.5 + 10)', 'A(x <= $b * 0.5 + 10)'],
      ['A(x <= ($b * 0.5) + 10)', 'A(x <= $b * 0.5 + 10)'],
      ['A(x <= $b * (0.5 + 10))', 'A(x <= $b * (0.5 + 10))'],
      ['A(x <= $a - ($b - $c))', 'A(x <= $a - ($b - $c))'],
      ['A(x <= ($a - $b) - $c)', 'A(x <= $a - $b - $c)'],
      ['A(x = ($a + $b) / 2)', 'A(x = ($a + $b) / 2)'],
      ['A(x >= $d - 3h - 30m)', 'A(x >= $d - 3h - 30m)'],
    ] as const) {
      const parsed = parse(`${text} -> X`);
      expect(parsed.ok, text).toBe(true);
      if (parsed.ok) expect(print(parsed.value.ast).trim()).toBe(`${canonical} -> X`);
    }
    expect(parse('A(x <= (1 + 2)) -> X').ok).toBe(false);
  });

  it('computes with two bindings, exactly, and refuses what does not fit', () => {
    const spec = `
      Budget(max = $m, extra = $e) & BuyProduct(price <= ($m + $e) / 2) -> Bought
      Bought -> Done`;
    const decide = (budget: Record<string, unknown>, price: number) => {
      const s = session(spec);
      s.observe({ updates: { Budget: budget } });
      return s.propose(buy('x', price)).decision;
    };
    expect(decide({ max: 0.1, extra: 0.2 }, 0.15)).toBe('allow');
    expect(decide({ max: 0.1, extra: 0.2 }, 0.150000001)).toBe('revise');
    expect(decide({ max: 30, extra: 10 }, 20)).toBe('allow');
    const divided = `
      Budget(max = $m, extra = $e) & BuyProduct(price <= $m / $e) -> Bought
      Bought -> Done`;
    const s = session(divided);
    s.observe({ updates: { Budget: { max: 10, extra: 0 } } });
    expect(s.propose(buy('x', 1)).decision).toBe('revise');
  });

  it('subtracts durations in a chain from a date-time', () => {
    const s = session('Flight(departure = $d) & SetReminder(at <= $d - 3h - 30m) -> R\nR -> Done');
    s.observe({ updates: { Flight: { departure: '2025-03-15T09:00' } } });
    const remind = (at: string) =>
      s.propose({ action: { name: 'SetReminder', args: { at } } }).decision;
    expect(remind('2025-03-15T05:30')).toBe('allow');
    expect(remind('2025-03-15T05:31')).toBe('revise');
  });

  it('types each operator: durations on dates and times, numbers on numbers', () => {
    const mismatch = (value: string) =>
      codes(
        `Flight(departure = $d) & Budget(max = $m) & SetReminder(at <= ${value}) -> R\nR -> Done`,
      );
    expect(mismatch('$d - 3h - 30m')).toEqual([]);
    expect(mismatch('$d * 2')).toContain('binding-type-mismatch');
    expect(mismatch('$d + $d')).toContain('binding-type-mismatch');
    expect(mismatch('$d - $m')).toContain('binding-type-mismatch');
    expect(codes('Budget(max = $m) & BuyProduct(price <= $m + 3h) -> B\nB -> Done')).toContain(
      'binding-type-mismatch',
    );
    expect(codes('Budget(max = $m) & BuyProduct(price <= $m * 2 - $q) -> B\nB -> Done')).toContain(
      'unbound-variable',
    );
  });
});

describe('a compiled spec carries filter bindings and arithmetic chains', () => {
  it('decides as the checked spec does after writing and reading it back', () => {
    const text = `
      Budget(max = $m, extra = $e) & ProductsResult(products[name contains "laptop", id = $id, price = $p, price <= ($m + $e) / 2]) & BuyProduct(id = $id, price <= $p * 0.5 + 10) -> Bought
      Bought -> Done`;
    const checked = checkSpec(text, schema);
    if (!checked.ok) throw new Error(JSON.stringify(checked.diagnostics));
    const read = readCompiledSpec(JSON.parse(JSON.stringify(writeCompiledSpec(checked.value))), {
      regex: compileRegex,
      pathCheck,
    });
    for (const spec of [checked.value, read]) {
      const decide = (price: number) => {
        const s = createSession(spec, { now });
        s.observe({
          updates: { ProductsResult: { products: catalogue }, Budget: { max: 40, extra: 20 } },
        });
        return s.propose(buy('x13', price)).decision;
      };
      expect(decide(22.5)).toBe('allow');
      expect(decide(22.6)).toBe('revise');
    }
  });
});
