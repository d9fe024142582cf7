import { describe, expect, it } from 'vitest';
import {
  CompiledSpecError,
  checkSpec,
  createGuard,
  loadCompiledGuard,
  loadToolSchema,
  unwrap,
  writeCompiledSpec,
} from '../../src/index.js';

/**
 * K1: a compiled spec was checked for its shapes and references, not its types. An edit
 * of the document — a text literal for a number, `~` on a number, another predicate's
 * variable, a path into a number, an action in a Done rule, … — loaded, and the guard
 * never fired, while `source` still showed it. Reading runs the checker's type rules over
 * the document: every edit of the review is refused with a `CompiledSpecError` naming
 * where. What only the host knows (which tools are critical, which facts are observed) is
 * pinned by giving the host's schema.
 */
const tools = {
  tools: [
    {
      name: 'Withdraw',
      annotations: { destructiveHint: true },
      inputSchema: {
        type: 'object',
        properties: { account: { type: 'string' }, amount: { type: 'number' } },
        required: ['account', 'amount'],
      },
    },
    {
      name: 'GetLimits',
      annotations: { readOnlyHint: true },
      inputSchema: { type: 'object', properties: {} },
      outputSchema: { type: 'object', properties: { daily: { type: 'number' } } },
    },
  ],
};
const schema = unwrap(loadToolSchema(JSON.stringify(tools)));
const specText = [
  'Withdraw(account = "checking") -> Withdrawn',
  'reject Withdraw(amount > 300) because "never more than 300 a day"',
  'Withdrawn -> Done',
  '',
].join('\n');

// biome-ignore lint/suspicious/noExplicitAny: the tests edit the document as plain JSON.
type Json = any;

function compiled(text = specText): Json {
  return JSON.parse(JSON.stringify(writeCompiledSpec(unwrap(checkSpec(text, schema)))));
}

const guardConstraint = '$.guards[0].pattern.constraints[0]';

const edits: readonly [string, (document: Json) => void, string][] = [
  [
    'a text literal for a number',
    (d) => {
      d.guards[0].pattern.constraints[0].value = { kind: 'text', value: '300' };
    },
    `${guardConstraint}.value`,
  ],
  [
    '~ on a number',
    (d) => {
      d.guards[0].pattern.constraints[0].operator = '~';
    },
    `${guardConstraint}.operator`,
  ],
  [
    "another predicate's variable",
    (d) => {
      d.guards[0].pattern.constraints[0].variable = ['GetLimitsResult', 0];
    },
    `${guardConstraint}.variable`,
  ],
  [
    'matches on a number',
    (d) => {
      const constraint = d.guards[0].pattern.constraints[0];
      constraint.operator = 'matches';
      constraint.value = { kind: 'regex', regex: ['3', ''], pattern: '3', flags: '' };
    },
    `${guardConstraint}.operator`,
  ],
  [
    'contains on a number',
    (d) => {
      const constraint = d.guards[0].pattern.constraints[0];
      constraint.operator = 'contains';
      constraint.value = { kind: 'text', value: '3' };
    },
    `${guardConstraint}.operator`,
  ],
  [
    'in with a scalar',
    (d) => {
      d.guards[0].pattern.constraints[0].operator = 'in';
    },
    `${guardConstraint}.value`,
  ],
  [
    'a path into a number',
    (d) => {
      d.guards[0].pattern.constraints[0].access = {
        steps: [{ kind: 'field', name: 'cents' }],
        compared: { kind: 'number' },
        text: 'amount.cents',
      };
    },
    `${guardConstraint}.access.steps[0].name`,
  ],
  [
    'an action pattern in a Done rule',
    (d) => {
      d.rules[1].action = d.rules[0].action;
    },
    '$.rules[1].action',
  ],
  [
    'not on an action',
    (d) => {
      d.rules[0].negations = [{ predicate: 'Withdraw', constraints: [], range: [0, 30] }];
    },
    '$.rules[0].negations[0].predicate',
  ],
  [
    'an unknown objective',
    (d) => {
      d.rules[1].objectives[0].name = 'Approved';
    },
    '$.rules[1].objectives[0].name',
  ],
  [
    'an unbound binding use',
    (d) => {
      const constraint = d.guards[0].pattern.constraints[0];
      constraint.value = { kind: 'text', value: '$limit' };
      constraint.binding = {
        name: 'limit',
        binds: false,
        each: false,
        kind: 'number',
        text: '$limit',
      };
    },
    `${guardConstraint}.binding.name`,
  ],
  [
    '@repeat(-5)',
    (d) => {
      d.rules[0].repeat = { limit: -5 };
    },
    '$.rules[0].repeat.limit',
  ],
  [
    '@repeat(0)',
    (d) => {
      d.rules[0].repeat = { limit: 0 };
    },
    '$.rules[0].repeat.limit',
  ],
  [
    'a result predicate no longer observed',
    (d) => {
      delete d.schema.predicates[3].observed;
    },
    '$.schema.predicates[3].observed',
  ],
  [
    'a filter that binds inside not',
    (d) => {
      d.rules[0].negations = [
        {
          predicate: 'GetLimitsResult',
          constraints: [
            {
              variable: ['GetLimitsResult', 0],
              operator: '=',
              value: { kind: 'text', value: '$d' },
              binding: { name: 'd', binds: true, each: false, kind: 'number', text: '$d' },
            },
          ],
          range: [0, 30],
        },
      ];
    },
    '$.rules[0].negations[0].constraints[0].binding',
  ],
];

const call = { id: 'w1', name: 'Withdraw', args: { account: 'checking', amount: 5000 } };

/** The review's `protect.intent`, over a folder listing with typed records. */
const folderSchema = unwrap(
  loadToolSchema(
    JSON.stringify({
      tools: [
        {
          name: 'ListFolder',
          annotations: { readOnlyHint: true },
          inputSchema: {
            type: 'object',
            properties: { path: { type: 'string' } },
            required: ['path'],
          },
          outputSchema: {
            type: 'object',
            properties: {
              entries: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: { name: { type: 'string' }, size: { type: 'number' } },
                  required: ['name'],
                },
              },
            },
          },
        },
        {
          name: 'RemoveFile',
          annotations: { destructiveHint: true },
          inputSchema: {
            type: 'object',
            properties: { path: { type: 'string' } },
            required: ['path'],
          },
        },
      ],
    }),
  ),
);
const protect = [
  'ListFolder(path = "/reports") -> Listed',
  'Listed & not ListFolderResult(entries[name contains "nda"] != []) & RemoveFile() -> Removed',
  'Removed -> Done',
].join('\n');
const negated = '$.rules[1].negations[0].constraints[0]';
const inFilter = `${negated}.access.steps[0].constraints[0]`;
const pathEdits: readonly [string, (document: Json) => void, string][] = [
  [
    'a field the record does not declare',
    (d) => {
      d.rules[1].negations[0].constraints[0].access.steps[0].constraints[0].access.steps[0].name =
        'owner';
    },
    `${inFilter}.access.steps[0].name`,
  ],
  [
    'a path into a text field',
    (d) => {
      d.rules[1].negations[0].constraints[0].access.steps[0].constraints[0].access.steps.push({
        kind: 'field',
        name: 'length',
      });
    },
    `${inFilter}.access.steps[1].name`,
  ],
  [
    "a schema variable for the filter's element",
    (d) => {
      d.rules[1].negations[0].constraints[0].access.steps[0].constraints[0].variable = [
        'ListFolder',
        0,
      ];
    },
    `${inFilter}.variable`,
  ],
  [
    'a compared type the path does not reach',
    (d) => {
      d.rules[1].negations[0].constraints[0].access.compared = { kind: 'number' };
    },
    `${negated}.access.compared`,
  ],
  [
    '"some element" on a filtered list compared with []',
    (d) => {
      d.rules[1].negations[0].constraints[0].access.exists = true;
    },
    `${negated}.access.exists`,
  ],
  [
    'a number for contains in the filter',
    (d) => {
      d.rules[1].negations[0].constraints[0].access.steps[0].constraints[0].value = {
        kind: 'number',
        value: 3,
      };
    },
    `${inFilter}.value`,
  ],
];

describe('K1: a compiled spec is type-checked as it is read', () => {
  it('the document as compiled loads, and its guard fires', async () => {
    const guard = await loadCompiledGuard(compiled(), { now: new Date() });
    expect(guard.check(call).action).toBe('refuse');
  });

  it.each(edits)('refuses %s, naming where', async (_, edit, path) => {
    const document = compiled();
    edit(document);
    const loading = loadCompiledGuard(document, { now: new Date() });
    await expect(loading).rejects.toBeInstanceOf(CompiledSpecError);
    await expect(loading).rejects.toMatchObject({ code: 'invalid-compiled-spec', path });
    // createGuard reads documents the same way.
    expect(() => createGuard(document, undefined, { now: new Date() })).toThrow(path);
  });

  it.each(pathEdits)('refuses %s, naming where', async (_, edit, path) => {
    const document = JSON.parse(
      JSON.stringify(writeCompiledSpec(unwrap(checkSpec(protect, folderSchema)))),
    );
    await expect(loadCompiledGuard(document, {})).resolves.toBeDefined();
    edit(document);
    await expect(loadCompiledGuard(document, {})).rejects.toMatchObject({
      code: 'invalid-compiled-spec',
      path,
    });
  });

  it("with the host schema given, refuses a document whose schema is not the host's: a destructive tool made harmless, an argument no longer required, a tool's result left out", async () => {
    const pinned = (edit: (document: Json) => void) => {
      const document = compiled();
      edit(document);
      return document;
    };
    await expect(loadCompiledGuard(compiled(), {}, schema)).resolves.toBeDefined();
    expect(createGuard(compiled(), schema).check(call).action).toBe('refuse');
    for (const edit of [
      (d: Json) => {
        d.schema.predicates[0].critical = false;
      },
      (d: Json) => {
        delete d.schema.predicates[0].variables[1].required;
      },
      (d: Json) => {
        d.schema.predicates.pop();
        delete d.schema.predicates[2].resultPredicate;
      },
    ]) {
      const document = pinned(edit);
      expect(() => createGuard(document, schema)).toThrow(CompiledSpecError);
      await expect(loadCompiledGuard(document, {}, schema)).rejects.toMatchObject({
        path: expect.stringMatching(/^\$\.schema\.predicates/),
      });
    }
  });

  it('where the checker is loaded (createGuard), refuses a document that is not what its source compiles to', () => {
    const document = compiled();
    document.guards[0].pattern.constraints[0].value.value = 3000;
    expect(() => createGuard(document, undefined, { now: new Date() })).toThrow(
      '$.guards[0].pattern.constraints[0].value.value: not what the source compiles to',
    );
    const dropped = compiled();
    dropped.guards = [];
    expect(() => createGuard(dropped, schema)).toThrow('$.guards[0]');
    expect(createGuard(compiled(), schema).check(call).action).toBe('refuse');
  });

  it('refuses a use of a binding turned into a second binder (the equality it stood for would be gone)', async () => {
    const text = [
      'GetLimits() -> Known',
      'Known & GetLimitsResult(daily = $d) & Withdraw(account = "checking", amount = $d) -> Withdrawn',
      'Withdrawn -> Done',
    ].join('\n');
    const document = compiled(text);
    expect(document.rules[1].action.constraints[1].binding.binds).toBe(false);
    document.rules[1].action.constraints[1].binding.binds = true;
    await expect(loadCompiledGuard(document, {})).rejects.toMatchObject({
      path: '$.rules[1].action.constraints[1].binding.name',
    });
  });

  it('reads back alternatives that share a binding, as the checker writes them', async () => {
    const text = [
      'GetLimits() -> Known',
      '(GetLimitsResult(daily = $d) | Known) & Withdraw(account = "checking", amount = $d) -> Withdrawn',
      '(GetLimitsResult(daily = $e) | GetLimitsResult(daily >= $e)) & Withdraw(account = "savings", amount <= $e) -> Withdrawn',
      'Withdrawn -> Done',
    ].join('\n');
    await expect(loadCompiledGuard(compiled(text), {})).resolves.toBeDefined();
  });

  it('reads back documents with bindings, filters, paths and arithmetic (the corpus round-trips elsewhere)', async () => {
    const text = [
      'GetLimits() -> Known',
      'Known & GetLimitsResult(daily = $d) & Withdraw(account = "checking", amount <= $d * 0.5) -> Withdrawn',
      'Withdrawn -> Done',
    ].join('\n');
    const guard = await loadCompiledGuard(compiled(text), { now: new Date() });
    expect(guard.check({ id: 'l1', name: 'GetLimits', args: {} }).action).toBe('run');
  });
});
