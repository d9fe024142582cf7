import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSession, lexicalSimilarity, type Verdict } from '../../src/engine/index.js';
import {
  type CheckedRule,
  checkPolicy,
  checkSpec,
  type PredicateDeclaration,
  type Schema,
  type Spec,
} from '../../src/language/index.js';
import { action, fixedNow, schemaOf, state } from './fixtures.js';
import {
  type ReferenceOptions,
  ReferenceSession,
  type ReferenceVerdict,
  referenceCoverage,
} from './reference-evaluator.js';

/**
 * The differential property test: random small schemas, random specs over them (as
 * text, checked by the language layer; specs with errors are discarded) and random
 * traces of proposals, observations and resolutions. The engine and the naive reference
 * evaluator (reference-evaluator.ts, written from LANGUAGE.md §6) must agree at every
 * step on the decision, severity, first reason code, performed objectives, achieved
 * counts and Done.
 */

const typeNames = [
  'number',
  'text',
  'boolean',
  'enum',
  'date',
  'time',
  'datetime',
  'list<text>',
  'list<number>',
] as const;
/** `list<json>` (LANGUAGE.md §7) is given only to a tool result's `items`, never drawn at random. */
type TypeName = (typeof typeNames)[number] | 'list<json>';

const typeSpelling: Readonly<Record<TypeName, string>> = {
  number: 'number',
  text: 'text',
  boolean: 'boolean',
  enum: 'enum[lo, mid, hi]',
  date: 'date',
  time: 'time',
  datetime: 'datetime',
  'list<text>': 'list<text>',
  'list<number>': 'list<number>',
  'list<json>': 'list<text>',
};

interface VariableModel {
  readonly name: string;
  readonly type: TypeName;
  readonly observed?: boolean;
  /** A persistent setting (`"setting": true`, LANGUAGE.md §9 frame conditions). */
  readonly setting?: boolean;
}

interface PredicateModel {
  readonly name: string;
  readonly kind: 'state' | 'action';
  readonly variables: readonly VariableModel[];
  readonly keyed: boolean;
  readonly critical: boolean;
  readonly resultOf?: string;
  readonly observed?: boolean;
  /** A tool result's keys: the call's parameters, which are its variables too (FORMATS.md §1). */
  readonly keys?: readonly string[];
}

/**
 * DIFF_SEED replays a failure fast-check reported (`seed: …` in its message), e.g.
 * DIFF_SEED=-2054118657; every property of the file then starts from that seed.
 */
const seeded =
  process.env['DIFF_SEED'] === undefined ? {} : { seed: Number(process.env['DIFF_SEED']) };

// ---- schemas --------------------------------------------------------------------------

const variablesArb = (
  prefix: string,
  min: number,
  max: number,
  pool: readonly TypeName[] = typeNames,
): fc.Arbitrary<VariableModel[]> =>
  fc
    .array(fc.constantFrom(...pool), { minLength: min, maxLength: max })
    .map((types) => types.map((type, index) => ({ name: `${prefix}${index}`, type })));

/** Schemas whose variables have types from `pool` (a pool with repeats biases the draw). */
const schemaModelArbOf = (pool: readonly TypeName[]): fc.Arbitrary<PredicateModel[]> =>
  fc
    .record({
      states: fc.array(variablesArb('v', 1, 3, pool), { minLength: 1, maxLength: 3 }),
      keyed: fc.option(variablesArb('w', 1, 2, pool), { nil: undefined }),
      actions: fc.array(
        fc.record({ variables: variablesArb('p', 0, 2, pool), critical: fc.boolean() }),
        {
          minLength: 1,
          maxLength: 3,
        },
      ),
      tool: fc.option(
        fc.record({
          parameters: variablesArb('q', 0, 1, pool),
          results: variablesArb('r', 1, 2, pool),
          critical: fc.boolean(),
        }),
        {
          nil: undefined,
        },
      ),
      // What the app reports (FORMATS.md §1): nothing, a whole predicate, or its last variable.
      observed: fc.array(fc.constantFrom('none', 'none', 'predicate', 'variable'), {
        minLength: 4,
        maxLength: 4,
      }),
      // Which states mark their first variable a setting (§9 frame conditions).
      settings: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
    })
    .map(({ states, keyed, actions, tool, observed, settings }) => {
      const predicates: PredicateModel[] = [];
      const mark = (variables: readonly VariableModel[], index: number) => {
        const last = variables.length - 1;
        return variables.map((variable, at) => ({
          ...variable,
          ...(observed[index] === 'variable' && at === last ? { observed: true } : {}),
          ...(settings[index] === true && at === 0 ? { setting: true } : {}),
        }));
      };
      for (const [index, variables] of states.entries()) {
        predicates.push({
          name: `S${index}`,
          kind: 'state',
          variables: mark(variables, index),
          keyed: false,
          critical: false,
          ...(observed[index] === 'predicate' ? { observed: true } : {}),
        });
      }
      if (keyed) {
        predicates.push({
          name: 'K',
          kind: 'state',
          variables: [{ name: 'id', type: 'text' }, ...mark(keyed, 3)],
          keyed: true,
          critical: false,
          ...(observed[3] === 'predicate' ? { observed: true } : {}),
        });
      }
      for (const [index, { variables, critical }] of actions.entries()) {
        predicates.push({ name: `A${index}`, kind: 'action', variables, keyed: false, critical });
      }
      if (tool) {
        predicates.push({
          name: 'T',
          kind: 'action',
          variables: tool.parameters,
          keyed: false,
          critical: tool.critical,
        });
        predicates.push({
          name: 'TResult',
          kind: 'state',
          // The call's parameters, which key its results (each distinct call keeps its
          // own), then small records the tool returns as JSON: `items[n >= 1].s` (§7).
          variables: [...tool.parameters, ...tool.results, { name: 'items', type: 'list<json>' }],
          keyed: false,
          critical: false,
          resultOf: 'T',
          keys: tool.parameters.map((parameter) => parameter.name),
        });
      }
      return predicates;
    });

const schemaModelArb = schemaModelArbOf(typeNames);

/**
 * For bindings: few kinds, so that a binder and its uses often have the same one and
 * values of one predicate often meet values of another.
 */
const bindingSchemaArb = schemaModelArbOf([
  'number',
  'number',
  'text',
  'text',
  'date',
  'time',
  'datetime',
  'list<text>',
  'list<number>',
]);

function schemaFrom(models: readonly PredicateModel[]): Schema {
  const declarations: PredicateDeclaration[] = models.map((model) => {
    const variables = Object.fromEntries(
      model.variables.map((variable) => [
        variable.name,
        variable.observed === true || variable.setting === true
          ? {
              type: typeSpelling[variable.type],
              ...(variable.observed === true ? { observed: true } : {}),
              ...(variable.setting === true ? { setting: true } : {}),
              ...(variable.type === 'list<json>' ? { jsonText: true } : {}),
            }
          : variable.type === 'list<json>'
            ? { type: typeSpelling[variable.type], jsonText: true }
            : typeSpelling[variable.type],
      ]),
    );
    if (model.kind === 'action') {
      return action(model.name, variables, {
        critical: model.critical,
        ...(model.name === 'T' ? { resultPredicate: 'TResult' } : {}),
      });
    }
    return state(model.name, variables, {
      ...(model.keyed
        ? { keys: ['id'] }
        : (model.keys ?? []).length > 0
          ? { keys: [...(model.keys ?? [])] }
          : {}),
      ...(model.resultOf !== undefined ? { resultOf: model.resultOf } : {}),
      ...(model.observed === true ? { observed: true } : {}),
    });
  });
  return schemaOf(declarations);
}

// ---- specs ----------------------------------------------------------------------------

const scalarLiterals: Readonly<Record<Exclude<TypeName, `list<${string}>`>, readonly string[]>> = {
  number: ['0', '1', '2', '5', '10', '-1', '0.3', '1.5'],
  text: ['"a"', '"b"', '"Alice"', '"alice"', '"Bob Smith"', '"+14155550123"'],
  boolean: ['true', 'false'],
  enum: ['lo', 'mid', 'hi'],
  date: ['2025-03-13', '2025-03-14', '2025-03-15', 'today', 'tomorrow', 'yesterday'],
  time: ['09:00', '12:00', '18:00', 'now', '00:00', '23:59'],
  datetime: [
    '2025-03-14T09:00',
    '2025-03-14T12:00',
    '2025-03-15T00:00',
    'now',
    'today',
    'tomorrow',
    '2025-03-15',
  ],
};
const textNeedles = ['"a"', '"li"', '"Bob"', '"A"'];
const similarTargets = ['"alice"', '"bob smith"', '"a"'];
// Anchored and not: the deny-list reading reads parts for the first only (O1).
const regexes = ['/^a/', '/b/i', '/ice$/', '/^$/', '/li/'];
const textLists = ['[]', '["a"]', '["a", "b"]', '["Alice", "b"]'];
const numberLists = ['[]', '[1]', '[1, 2]', '[2, 5]'];

const operatorsByType: Readonly<Record<TypeName, readonly string[]>> = {
  number: ['=', '!=', '<', '<=', '>', '>=', 'in', 'not in'],
  date: ['=', '!=', '<', '<=', '>', '>=', 'in', 'not in'],
  time: ['=', '!=', '<', '<=', '>', '>=', 'in', 'not in'],
  datetime: ['=', '!=', '<', '<=', '>', '>=', 'in', 'not in'],
  text: [
    '=',
    '!=',
    '~',
    '!~',
    'in',
    'not in',
    'contains',
    'not contains',
    'matches',
    'not matches',
  ],
  boolean: ['=', '!='],
  enum: ['=', '!=', 'in', 'not in'],
  'list<text>': [
    '=',
    '!=',
    'in',
    'not in',
    'contains',
    'not contains',
    'matches',
    'not matches',
    '~',
    '!~',
  ],
  'list<number>': ['=', '!=', 'in', 'not in', 'contains', 'not contains'],
  'list<json>': [],
};

/**
 * A constraint on `items`, a `list<json>` of `{n, s}` records (LANGUAGE.md §7): counts of
 * filters, `any`/`each` over projections, a projection's `contains`.
 */
function jsonConstraintArb(name: string): fc.Arbitrary<string> {
  const count = fc.constantFrom('=', '!=', '<', '<=', '>', '>=');
  const small = fc.integer({ min: 0, max: 3 });
  const filter = fc
    .uniqueArray(
      fc.oneof(
        fc
          .tuple(fc.constantFrom('<', '<=', '>', '>=', '=', '!=', 'in'), small)
          .map(
            ([operator, bound]) =>
              `n ${operator} ${operator === 'in' ? `[${bound}, ${bound + 1}]` : bound}`,
          ),
        fc
          .tuple(fc.constantFrom('=', '!=', 'matches', 'contains'), fc.constantFrom('a', 'B'))
          .map(
            ([operator, text]) =>
              `s ${operator} ${operator === 'matches' ? `/^${text}/` : `"${text}"`}`,
          ),
        fc
          .tuple(fc.constantFrom('<', '>='), small)
          .map(([operator, bound]) => `s as number ${operator} ${bound}`),
      ),
      { minLength: 1, maxLength: 2, selector: (text) => text.slice(0, 2) },
    )
    .map((constraints) => `[${constraints.join(', ')}]`);
  return fc.oneof(
    fc.tuple(count, small).map(([operator, bound]) => `count(${name}) ${operator} ${bound}`),
    fc
      .tuple(filter, count, small)
      .map(([kept, operator, bound]) => `count(${name}${kept}) ${operator} ${bound}`),
    fc
      .tuple(fc.constantFrom('any', 'each'), fc.constantFrom('<', '<=', '>', '>=', '='), small)
      .map(([quantifier, operator, bound]) => `${quantifier}(${name}.n) ${operator} ${bound}`),
    fc
      .tuple(fc.constantFrom('any', 'each'), fc.constantFrom('"a"', '"b"'))
      .map(([quantifier, text]) => `${quantifier}(${name}.s) = ${text}`),
    fc
      .tuple(filter, fc.constantFrom('contains', 'not contains'), small)
      .map(([kept, operator, bound]) => `${name}${kept}.n ${operator} ${bound}`),
    // v3 (LANGUAGE.md §9): aggregates over a projection (of a filter), and positions.
    fc
      .tuple(
        fc.constantFrom('sum', 'min', 'max'),
        fc.oneof(fc.constant(''), filter),
        count,
        fc.integer({ min: 0, max: 6 }),
      )
      .map(([fn, kept, operator, bound]) => `${fn}(${name}${kept}.n) ${operator} ${bound}`),
    fc
      .tuple(fc.constantFrom('0', '1', '-1', '-2', '3'), count, small)
      .map(([position, operator, bound]) => `${name}[${position}].n ${operator} ${bound}`),
    fc
      .tuple(fc.constantFrom('0', '-1'), fc.constantFrom('=', '!='), fc.constantFrom('"a"', '"b"'))
      .map(([position, operator, text]) => `${name}[${position}].s ${operator} ${text}`),
  );
}

function literalArb(type: TypeName, operator: string): fc.Arbitrary<string> {
  const positive = operator.replace(/^not /, '').replace('!~', '~').replace('!=', '=');
  if (positive === 'matches') return fc.constantFrom(...regexes);
  if (type === 'list<text>') {
    if (positive === 'contains') return fc.constantFrom(...scalarLiterals.text);
    if (positive === '~') return fc.constantFrom(...similarTargets);
    return fc.constantFrom(...textLists);
  }
  if (type === 'list<number>') {
    if (positive === 'contains') return fc.constantFrom(...scalarLiterals.number);
    return fc.constantFrom(...numberLists);
  }
  if (type === 'list<json>') throw new Error('items is constrained by jsonConstraintArb');
  if (type === 'text' && positive === 'contains') return fc.constantFrom(...textNeedles);
  if (type === 'text' && positive === '~') return fc.constantFrom(...similarTargets);
  const pool = scalarLiterals[type];
  if (positive === 'in')
    return fc
      .uniqueArray(fc.constantFrom(...pool), { minLength: 1, maxLength: 2 })
      .map((items) => `[${items.join(', ')}]`);
  return fc.constantFrom(...pool);
}

/** `equality`: how much more often `=` is chosen than each other operator. */
function constraintArb(
  variables: readonly VariableModel[],
  equality: number,
): fc.Arbitrary<string> {
  return fc
    .constantFrom(...variables)
    .chain((variable) =>
      variable.type === 'list<json>'
        ? jsonConstraintArb(variable.name)
        : fc
            .oneof(
              { weight: equality, arbitrary: fc.constant('=') },
              { weight: 1, arbitrary: fc.constantFrom(...operatorsByType[variable.type]) },
            )
            .chain((operator) =>
              literalArb(variable.type, operator).map(
                (literal) => `${variable.name} ${operator} ${literal}`,
              ),
            ),
    );
}

function patternArb(
  predicates: readonly PredicateModel[],
  maxConstraints: number,
  equality = 1,
): fc.Arbitrary<string> {
  return fc.constantFrom(...predicates).chain((predicate) =>
    predicate.variables.length === 0
      ? fc.constant(`${predicate.name}()`)
      : fc
          .array(constraintArb(predicate.variables, equality), {
            minLength: 0,
            maxLength: maxConstraints,
          })
          .map((constraints) => `${predicate.name}(${constraints.join(', ')})`),
  );
}

/**
 * A state atom with the v2 forms mixed in: `not P(...)`, and a disjunction
 * `(P(...) | Q(...))` (LANGUAGE.md §7).
 */
function v2StatePatternArb(states: readonly PredicateModel[]): fc.Arbitrary<string> {
  if (states.length === 0) return patternArb(states, 2);
  return fc.oneof(
    { weight: 6, arbitrary: patternArb(states, 2) },
    { weight: 1, arbitrary: patternArb(states, 2).map((pattern) => `not ${pattern}`) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(patternArb(states, 2), patternArb(states, 1))
        .map(([first, second]) => `(${first} | ${second})`),
    },
  );
}

/** An action pattern, sometimes with `absent(arg)` (v2); with an argument `@repeat(per:)` may use. */
function actionPatternArb(
  actions: readonly PredicateModel[],
  equality: number,
): fc.Arbitrary<{ readonly text: string; readonly argument: string | undefined }> {
  return fc.constantFrom(...actions).chain((action) => {
    const argument = action.variables[0]?.name;
    return fc
      .tuple(
        action.variables.length === 0
          ? fc.constant([] as string[])
          : fc.array(constraintArb(action.variables, equality), { maxLength: 1 }),
        action.variables.length === 0
          ? fc.constant(undefined)
          : fc.option(fc.constantFrom(...action.variables.map((variable) => variable.name)), {
              nil: undefined,
              freq: 4,
            }),
      )
      .map(([constraints, absent]) => ({
        text: `${action.name}(${[...constraints, ...(absent === undefined ? [] : [`absent(${absent})`])].join(', ')})`,
        argument,
      }));
  });
}

function objectiveReferenceArb(names: readonly string[]): fc.Arbitrary<string[]> {
  if (names.length === 0) return fc.constant([]);
  return fc.uniqueArray(fc.constantFrom(...names), { maxLength: 2 }).chain((chosen) =>
    fc.tuple(
      ...chosen.map((name) =>
        fc.oneof(
          { weight: 4, arbitrary: fc.constant(name) },
          {
            weight: 1,
            arbitrary: fc
              .constantFrom('>= 2', '= 0', '< 2', '!= 1')
              .map((bound) => `${name} ${bound}`),
          },
          // v2: not achieved
          { weight: 1, arbitrary: fc.constant(`not ${name}`) },
        ),
      ),
    ),
  );
}

interface SpecModel {
  readonly text: string;
  readonly heads: readonly string[];
}

// ---- bindings, arithmetic, len, count(… matches …), Answer (LANGUAGE.md §7) ------------

/** A left side a binding can meet: a variable, a projection, a count or a length. */
interface Site {
  readonly predicate: PredicateModel;
  readonly subject: string;
  /** The kind of one value (`json`: known at run time). */
  readonly kind: 'number' | 'text' | 'boolean' | 'date' | 'time' | 'datetime' | 'json';
  readonly list: boolean;
}

function sitesOf(models: readonly PredicateModel[]): Site[] {
  const sites: Site[] = [];
  for (const predicate of models) {
    for (const variable of predicate.variables) {
      const name = variable.name;
      const site = (subject: string, kind: Site['kind'], list = false) =>
        sites.push({ predicate, subject, kind, list });
      switch (variable.type) {
        case 'list<json>':
          site(`${name}.n`, 'json', true);
          site(`${name}.s`, 'json', true);
          site(`${name}[n >= 1].s`, 'json', true);
          site(`count(${name})`, 'number');
          site(`count(${name} matches /a/)`, 'number');
          // v3 (§9): aggregates and positions bind and compare like any term.
          site(`sum(${name}.n)`, 'number');
          site(`max(${name}[n >= 1].n)`, 'number');
          site(`${name}[-1].n`, 'json');
          break;
        case 'list<text>':
          site(name, 'text', true);
          site(`count(${name} matches /^a/)`, 'number');
          break;
        case 'list<number>':
          site(name, 'number', true);
          site(`min(${name})`, 'number');
          site(`${name}[0]`, 'number');
          break;
        case 'text':
          site(name, 'text');
          site(`len(${name})`, 'number');
          break;
        case 'enum':
          site(name, 'text');
          break;
        default:
          site(name, variable.type);
      }
    }
  }
  return sites;
}

const compatible = (binder: Site, use: Site) =>
  binder.kind === use.kind || binder.kind === 'json' || use.kind === 'json';

const useOperators: Readonly<Record<Site['kind'], readonly string[]>> = {
  number: ['=', '!=', '<', '<=', '>', '>='],
  date: ['=', '!=', '<', '<=', '>', '>='],
  time: ['=', '!=', '<', '<=', '>', '>='],
  datetime: ['=', '!=', '<', '<=', '>', '>='],
  text: ['=', '!=', 'contains', 'not contains'],
  boolean: ['=', '!='],
  json: ['=', '!=', '<', '>=', 'contains'],
};

/** Arithmetic on a use, by the binding's kind: exact decimals, division by zero, midnight. */
const arithmetic: Readonly<Record<Site['kind'], readonly string[]>> = {
  // Chains too: precedence, left to right, parentheses of one side.
  number: [
    ' * 0.5',
    ' + 1',
    ' - 0.1',
    ' / 2',
    ' / 3',
    ' / 0',
    ' + 0.2',
    ' * 2',
    ' * 0.5 + 1',
    ' - 0.1 * 2',
  ],
  date: [' + 1d', ' - 1d', ' - 2d', ' + 1d - 2d'],
  time: [' - 3h', ' + 30m', ' - 90s', ' + 12h', ' - 3h - 30m'],
  datetime: [' - 3h', ' + 1d', ' - 30m', ' + 12h', ' + 1d - 90s'],
  text: [],
  boolean: [],
  json: [' + 1', ' * 2', ' - 0.1', ' * 2 + 1'],
};

/** A use of `$x` on a site compatible with the binder's: an operator, maybe arithmetic. */
function useArb(binder: Site, site: Site, name: string): fc.Arbitrary<string> {
  const kind = binder.kind === 'json' ? site.kind : binder.kind;
  const operators =
    site.list && kind !== 'json'
      ? [...useOperators[kind].filter((operator) => !operator.includes('contains')), 'contains']
      : useOperators[kind];
  const computed = arithmetic[kind === 'json' ? 'json' : kind];
  return fc
    .tuple(
      fc.oneof(
        { weight: 2, arbitrary: fc.constant(operators[0] as string) },
        { weight: 3, arbitrary: fc.constantFrom(...operators) },
      ),
      computed.length === 0
        ? fc.constant('')
        : fc.oneof(
            { weight: 2, arbitrary: fc.constant('') },
            { weight: 1, arbitrary: fc.constantFrom(...computed) },
          ),
    )
    .map(([operator, suffix]) => `${site.subject} ${operator} $${name}${suffix}`);
}

/**
 * A rule body with a binding: the binder's atom first, then one or two uses on other
 * atoms (sometimes under `not`), constraints on one action merged into its one pattern,
 * constraints of one state predicate sometimes merged (one instance must meet both).
 */
function bindingBodyArb(models: readonly PredicateModel[]): fc.Arbitrary<string[] | undefined> {
  const sites = sitesOf(models);
  if (sites.length === 0) return fc.constant(undefined);
  return fc.constantFrom(...sites).chain((binder) => {
    const uses = sites.filter((site) => compatible(binder, site));
    return fc
      .array(
        fc.record({
          site: fc.constantFrom(...uses),
          negated: fc.oneof(
            { weight: 3, arbitrary: fc.constant(false) },
            { weight: 1, arbitrary: fc.constant(true) },
          ),
          merged: fc.boolean(),
        }),
        { minLength: 1, maxLength: 2 },
      )
      .chain((chosen) =>
        fc.tuple(...chosen.map(({ site }) => useArb(binder, site, 'x'))).map((texts) => {
          const action = [binder, ...chosen.map(({ site }) => site)].find(
            (site) => site.predicate.kind === 'action',
          )?.predicate;
          if (
            [binder, ...chosen.map(({ site }) => site)].some(
              (site) => site.predicate.kind === 'action' && site.predicate !== action,
            )
          )
            return undefined;
          // Atoms in body order: the binder's first.
          const atoms: { predicate: PredicateModel; constraints: string[]; negated: boolean }[] = [
            {
              predicate: binder.predicate,
              constraints: [`${binder.subject} = $x`],
              negated: false,
            },
          ];
          chosen.forEach(({ site, negated, merged }, index) => {
            const text = texts[index] as string;
            const isAction = site.predicate.kind === 'action';
            const into = atoms.find(
              (atom) =>
                atom.predicate === site.predicate &&
                !atom.negated &&
                (isAction || (merged && !negated)),
            );
            if (into) into.constraints.push(text);
            else
              atoms.push({
                predicate: site.predicate,
                constraints: [text],
                negated: negated && !isAction,
              });
          });
          return atoms.map(
            (atom) =>
              `${atom.negated ? 'not ' : ''}${atom.predicate.name}(${atom.constraints.join(', ')})`,
          );
        }),
      );
  });
}

/**
 * Bindings inside filters (docs/language.md): a filter that stands for one element and
 * binds from it, or a filter (under count, any or not) that compares with a bound value.
 */
function filterBindingBodyArb(
  models: readonly PredicateModel[],
): fc.Arbitrary<string[] | undefined> {
  const tool = models.find((model) => model.resultOf !== undefined);
  const sites = sitesOf(models);
  if (tool === undefined || sites.length === 0) return fc.constant(undefined);
  const standing = fc.constantFrom(
    `${tool.name}(items[s = "a", n = $x])`,
    `${tool.name}(items[n >= 1, s = $x])`,
    `${tool.name}(items[s != "b", n = $x].s = $y)`,
  );
  const filterUses = (kind: Site['kind']) =>
    kind === 'text'
      ? [`${tool.name}(count(items[s = $x]) >= 1)`, `not ${tool.name}(items[s = $x])`]
      : kind === 'number' || kind === 'json'
        ? [
            `${tool.name}(count(items[n <= $x]) >= 1)`,
            `${tool.name}(count(items[n > $x * 2 + 1]) = 0)`,
            `${tool.name}(any(items[n = $x].s) = "a")`,
            `not ${tool.name}(items[n = $x])`,
          ]
        : [];
  const usable = sites.filter((site) => filterUses(site.kind).length > 0);
  return fc.oneof(
    // A standing filter binds; ordinary atoms use the bound value.
    fc
      .tuple(standing, fc.constantFrom(...sites))
      .chain(([binder, site]) =>
        useArb({ ...site, kind: 'json' }, site, 'x').map((use) => [
          binder,
          site.predicate.kind === 'action'
            ? `${site.predicate.name}(${use})`
            : `${site.predicate.name}(${use})`,
        ]),
      ),
    // An ordinary binder; a filter compares with the bound value.
    usable.length === 0
      ? fc.constant(undefined)
      : fc
          .constantFrom(...usable)
          .chain((site) =>
            fc
              .constantFrom(...filterUses(site.kind))
              .map((use) => [`${site.predicate.name}(${site.subject} = $x)`, use]),
          ),
  );
}

/** A guard whose one pattern binds and uses `$g`: on an argument not given it fires. */
function bindingGuardArb(models: readonly PredicateModel[]): fc.Arbitrary<string | undefined> {
  const sites = sitesOf(models).filter(
    (site) => site.predicate.kind === 'action' || site.predicate.resultOf === undefined,
  );
  if (sites.length === 0) return fc.constant(undefined);
  // Mostly on actions, whose arguments may be left out.
  const onActions = sites.filter((site) => site.predicate.kind === 'action');
  return fc
    .oneof(
      {
        weight: onActions.length > 0 ? 3 : 0,
        arbitrary: fc.constantFrom(...(onActions.length > 0 ? onActions : sites)),
      },
      { weight: 1, arbitrary: fc.constantFrom(...sites) },
    )
    .chain((binder) => {
      const uses = sites.filter(
        (site) => site.predicate === binder.predicate && compatible(binder, site),
      );
      return fc
        .tuple(
          fc.constantFrom('reject', 'confirm'),
          fc.constantFrom(...uses).chain((site) => useArb(binder, site, 'g')),
        )
        .map(([mode, use]) => `${mode} ${binder.predicate.name}(${binder.subject} = $g, ${use})`);
    });
}

/** What a Done rule may ask of the final answer (§7 `Answer(text)`). */
const answerAtoms = [
  'Answer(text contains "a")',
  'not Answer(text contains "b")',
  'Answer(len(text) > 4)',
  'Answer(len(text) <= 4)',
  'Answer(text matches /^done/)',
  'Answer()',
  'not Answer()',
];

function answerAtomArb(models: readonly PredicateModel[]): fc.Arbitrary<string[]> {
  const texts = sitesOf(models).filter(
    (site) =>
      site.kind === 'text' && site.predicate.kind === 'state' && !site.subject.startsWith('len('),
  );
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...answerAtoms).map((atom) => [atom]) },
    {
      weight: texts.length > 0 ? 2 : 0,
      arbitrary: fc
        .constantFrom(...(texts.length > 0 ? texts : sitesOf(models)))
        .chain((site) =>
          fc
            .constantFrom('contains', 'not contains', '=')
            .map((operator) => [
              `${site.predicate.name}(${site.subject} = $a)`,
              `Answer(text ${operator} $a)`,
            ]),
        ),
    },
  );
}

/** How a spec is shaped: few objectives with mixed bodies, or many rules over the same actions. */
interface SpecProfile {
  readonly maxObjectives: number;
  /** fast-check `freq` of leaving the action pattern out (1 in freq). */
  readonly actionFrequency: number;
  /** Weight of `=` against each other operator in action patterns. */
  readonly actionEquality: number;
  /** Rules and guards with bindings, Done rules reading the answer, finishes with answers. */
  readonly bindings?: boolean;
}

const mixedSpecs: SpecProfile = { maxObjectives: 3, actionFrequency: 2, actionEquality: 1 };
const actionHeavySpecs: SpecProfile = { maxObjectives: 7, actionFrequency: 8, actionEquality: 6 };
const bindingSpecs: SpecProfile = {
  maxObjectives: 3,
  actionFrequency: 2,
  actionEquality: 2,
  bindings: true,
};

function specArb(models: readonly PredicateModel[], profile: SpecProfile): fc.Arbitrary<SpecModel> {
  const states = models.filter((model) => model.kind === 'state');
  const actions = models.filter((model) => model.kind === 'action');
  const names = new Set(actions.map((model) => model.name));
  const hasAction = (atoms: readonly string[]) =>
    atoms.some((atom) => names.has(atom.slice(0, atom.indexOf('('))));
  const bound = profile.bindings
    ? fc.option(
        fc.oneof(
          { weight: 3, arbitrary: bindingBodyArb(models) },
          { weight: 1, arbitrary: filterBindingBodyArb(models) },
        ),
        { nil: undefined, freq: 2 },
      )
    : fc.constant(undefined);
  return fc.integer({ min: 1, max: profile.maxObjectives }).chain((objectiveCount) => {
    const heads = Array.from({ length: objectiveCount }, (_, index) => `O${index}`);
    const ruleArb = (index: number) =>
      fc
        .record({
          confirm: fc.oneof(
            { weight: 3, arbitrary: fc.constant('') },
            { weight: 1, arbitrary: fc.constantFrom('@confirm\n', '@confirm(safety, "ask")\n') },
          ),
          repeat: fc.oneof(
            { weight: 3, arbitrary: fc.constant('') },
            { weight: 1, arbitrary: fc.constantFrom('@repeat\n', '@repeat(2)\n', '@repeat(1)\n') },
          ),
          objectives: objectiveReferenceArb(heads.slice(0, index)),
          states: fc.array(v2StatePatternArb(states), { maxLength: 2 }),
          action: fc.option(actionPatternArb(actions, profile.actionEquality), {
            nil: undefined,
            freq: profile.actionFrequency,
          }),
          per: fc.boolean(),
          bound,
        })
        .map(
          ({ confirm, repeat, objectives, states: patterns, action: drawn, per, bound: atoms }) => {
            // A body with a binding keeps its own action pattern (one per body).
            const action = atoms !== undefined && hasAction(atoms) ? undefined : drawn;
            const body = [
              ...objectives,
              ...(atoms ?? []),
              // A body with a binding has few other atoms, so that it fires now and then.
              ...(atoms === undefined ? patterns : patterns.slice(0, 1)),
              ...(action ? [action.text] : []),
            ];
            // v2: @repeat(per: arg) on a rule whose action has that argument.
            const annotation =
              per && action?.argument !== undefined
                ? `@repeat(${repeat === '@repeat(2)\n' ? '2, ' : ''}per: ${action.argument})\n`
                : repeat;
            return `${confirm}${annotation}${body.length === 0 ? 'true' : body.join(' & ')} -> O${index}`;
          },
        );
    const objectiveRules = heads.map((_, index) =>
      fc.array(ruleArb(index), { minLength: 1, maxLength: 2 }),
    );
    const doneRule = fc
      .record({
        objectives: objectiveReferenceArb(heads),
        states: fc.array(v2StatePatternArb(states), { maxLength: 1 }),
        answer: profile.bindings
          ? fc.option(answerAtomArb(models), { nil: undefined, freq: 2 })
          : fc.constant(undefined),
        bound,
      })
      .map(({ objectives, states: patterns, answer, bound: atoms }) => {
        const body = [
          ...objectives,
          ...(atoms !== undefined && !hasAction(atoms) ? atoms : []),
          ...patterns,
          ...(answer ?? []),
        ];
        return `${body.length === 0 ? 'true' : body.join(' & ')} -> Done`;
      });
    const plainGuard = fc
      .record({ mode: fc.constantFrom('reject', 'confirm'), pattern: patternArb(models, 1) })
      .map(({ mode, pattern }) => `${mode} ${pattern}`);
    const guard = profile.bindings
      ? fc
          .tuple(plainGuard, bindingGuardArb(models), fc.boolean())
          .map(([plain, binding, pick]) => (pick && binding !== undefined ? binding : plain))
      : plainGuard;
    return fc
      .tuple(
        fc.tuple(...objectiveRules),
        fc.array(doneRule, { minLength: 1, maxLength: 2 }),
        fc.array(guard, { maxLength: 2 }),
      )
      .map(([rules, done, guards]) => ({
        text: [...rules.flat(), ...done, ...guards].join('\n'),
        heads,
      }));
  });
}

// ---- traces ---------------------------------------------------------------------------

const inputValues: Readonly<Record<TypeName, readonly unknown[]>> = {
  // Awkward values too: 0.1 + 0.2 against 0.3, "" and [], times and date-times near midnight.
  number: [0, 1, 2, 5, 10, -1, '5', 0.1, 0.2, 0.3, '0.30000000000000004', 1.5],
  // Parts, a trailing dot, a look-alike (Cyrillic а) and a phone number: the deny-list
  // reading of guards, `not` and @repeat(per:) (O1, E2, E4).
  text: [
    'a',
    'b',
    'Alice',
    'alice ',
    'Bob Smith',
    'bob  smith',
    'xyz',
    '',
    'b, Alice',
    'B <a>.',
    '\u0430',
    '+1-415-555-0123',
  ],
  boolean: [true, false, 'true'],
  enum: ['lo', 'mid', 'hi', 'HI'],
  date: ['2025-03-13', '2025-03-14', '2025-03-15', 'today', 'tomorrow', '2025-03-16'],
  time: ['09:00', '12:00', '18:00', '19:30', '00:30', '23:59', '02:00'],
  datetime: [
    '2025-03-14T09:00',
    '2025-03-14T12:00',
    '2025-03-15T00:00',
    'now',
    '2025-03-14T23:30',
    '2025-03-15T01:00',
    '2025-03-14T21:00',
  ],
  'list<text>': [[], ['a'], ['a', 'b'], ['Alice'], ['b', 'Bob Smith'], [''], ['a', 'Alice']],
  'list<number>': [[], [1], [1, 2], [5], [0.1, 0.2], [2, 2]],
  // Records as a tool returns them: a number given as a string, a field missing.
  'list<json>': [
    [],
    [{ n: 1, s: 'a' }],
    [
      { n: 0, s: 'A' },
      { n: 3, s: 'b' },
    ],
    [
      { n: 2, s: 'ab' },
      { n: '1', s: 'b' },
      { n: 3, s: 'a' },
    ],
    [{ n: 2 }, { n: 1, s: 'a' }],
    [{ s: 'b', n: 2, extra: [1] }],
    [
      { n: 1, s: '2' },
      { n: 2, s: 'x' },
    ],
    // Decimals, "" and fields of the wrong JSON type.
    [
      { n: 0.1, s: '' },
      { n: 0.2, s: 'a' },
    ],
    [{ n: '2', s: 5 }],
    [
      { n: null, s: 'a' },
      { n: true, s: 'b' },
    ],
  ],
};
const invalidValues: Readonly<Record<TypeName, unknown>> = {
  number: 'abc',
  text: null,
  boolean: 'maybe',
  enum: 'nope',
  date: '2025-02-30',
  time: '25:00',
  datetime: 'soon',
  'list<text>': [null],
  'list<number>': ['x'],
  'list<json>': [null],
};

type Pools = Readonly<Record<TypeName, readonly unknown[]>>;

/**
 * For bindings: fewer values per type, the same numbers and texts across types and in
 * tool records, so that a value bound in one atom often meets itself in another.
 */
const bindingValues: Pools = {
  ...inputValues,
  number: [1, 2, 0.1, 0.2, 0.3, '0.30000000000000004', '2', 4],
  // Parts, a look-alike (Cyrillic а) and phone spellings: the deny-list reading (E2, E4).
  text: ['a', 'Alice', 'alice ', '', 'a b', 'b, Alice', '\u0430', '+1 415 555 0123'],
  date: ['2025-03-14', '2025-03-15', 'today', '2025-03-16'],
  time: ['00:30', '23:59', '02:00', '21:00'],
  datetime: ['2025-03-14T23:30', '2025-03-15T01:00', '2025-03-14T21:00', '2025-03-15T00:30'],
  'list<text>': [[], ['a'], ['Alice', 'b'], [''], ['a', 'Alice']],
  'list<number>': [[], [1], [1, 2], [0.1, 0.2], [2, 2], [4]],
  'list<json>': [
    [],
    [{ n: 1, s: 'a' }],
    [
      { n: 2, s: 'Alice' },
      { n: 1, s: 'b' },
    ],
    [
      { n: 0.1, s: '' },
      { n: 0.2, s: 'a' },
    ],
    [{ n: '2', s: 2 }],
    [{ n: 4 }, { n: 2, s: 'a b' }],
    // Long enough that joins read it through a per-list element table (join.ts).
    [
      { n: 1, s: 'b' },
      { n: 2, s: 'b' },
      { n: '4', s: 'a b' },
      { n: 0.1, s: 2 },
      { s: 'Alice' },
      { n: 4, s: '' },
      { n: 0.2, s: 'b' },
      { n: 2, s: 'alice ' },
      { n: 1, s: 'a' },
    ],
  ],
};

function valueArb(
  type: TypeName,
  allowNull: boolean,
  pools: Pools = inputValues,
): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 20, arbitrary: fc.constantFrom(...pools[type]) },
    { weight: 1, arbitrary: fc.constant(invalidValues[type]) },
    { weight: allowNull ? 1 : 0, arbitrary: fc.constant(null) },
  );
}

function valuesArb(
  variables: readonly VariableModel[],
  allowNull: boolean,
  required: readonly string[] = [],
  pools: Pools = inputValues,
): fc.Arbitrary<Record<string, unknown>> {
  if (variables.length === 0) return fc.constant({});
  return fc
    .tuple(
      ...variables.map((variable) =>
        fc.option(valueArb(variable.type, allowNull, pools), {
          nil: undefined,
          // A list left out is the empty list, except to absent(arg) (E6): often left out.
          freq: required.includes(variable.name) && !variable.type.startsWith('list') ? 100 : 3,
        }),
      ),
    )
    .chain((values) =>
      fc
        .oneof(
          { weight: 30, arbitrary: fc.constant(undefined) },
          { weight: 1, arbitrary: fc.constantFrom('zzz') },
        )
        .map((unknown) => {
          const record: Record<string, unknown> = {};
          variables.forEach((variable, index) => {
            const value = values[index];
            if (value !== undefined) record[variable.name] = value;
          });
          if (unknown !== undefined) record[unknown] = 1;
          return record;
        }),
    );
}

function updatesArb(
  states: readonly PredicateModel[],
  pools: Pools = inputValues,
): fc.Arbitrary<unknown> {
  const keyed = states.find((model) => model.keyed);
  const keyedValues = (model: PredicateModel) =>
    fc
      .tuple(
        fc.constantFrom('k1', 'k2', 'K1'),
        valuesArb(model.variables.slice(1), true, [], pools),
      )
      .map(([id, values]) => ({ ...values, id }));
  const objectForm = fc
    .uniqueArray(fc.constantFrom(...states), {
      minLength: 1,
      maxLength: 2,
      selector: (model) => model.name,
    })
    .chain((chosen) =>
      fc
        .tuple(
          ...chosen.map((model) =>
            model.keyed ? keyedValues(model) : valuesArb(model.variables, true, [], pools),
          ),
        )
        .map((values) =>
          Object.fromEntries(chosen.map((model, index) => [model.name, values[index]])),
        ),
    );
  const arrayForm = keyed
    ? fc.array(
        fc.record({
          predicate: fc.constant(keyed.name),
          op: fc.constantFrom('add', 'update', 'delete'),
          values: keyedValues(keyed),
        }),
        { minLength: 1, maxLength: 2 },
      )
    : objectForm;
  return fc.oneof(
    { weight: 6, arbitrary: objectForm },
    { weight: keyed ? 2 : 0, arbitrary: arrayForm },
    { weight: 1, arbitrary: fc.constant({ Nope: {} }) },
  );
}

/**
 * Final answers (§7): plain text, text a Done rule looks for, and calls shown — the ReAct
 * way (also with the name in words, in HTML paragraphs, with `None` or plain text for an
 * action's one argument), as LangChain's `Invoking:` line or as `Name(k=…)` — of actions
 * the trace may or may not have committed, with arguments that may or may not be the
 * committed ones, of no schema action, or with an unreadable (cut-off) input.
 */
function answerArb(models: readonly PredicateModel[], pools: Pools): fc.Arbitrary<string> {
  const actions = models.filter((model) => model.kind === 'action');
  const shapes = ['react', 'react', 'words', 'html', 'invoking', 'call', 'none'] as const;
  const shown = fc.constantFrom(...actions).chain((model) => {
    const only = model.variables.length === 1 ? model.variables[0]! : undefined;
    const plain =
      only === undefined || only.type.startsWith('list')
        ? []
        : [
            valueArb(only.type, false, pools).map(
              (value) => `Action: ${model.name}\nAction Input: ${String(value)}`,
            ),
          ];
    const written = fc
      .record({
        args: fc.option(valuesArb(model.variables, false, [], pools), { nil: undefined, freq: 5 }),
        shape: fc.constantFrom(...shapes),
      })
      .map(({ args, shape }) => {
        // A cut-off input when args is undefined.
        const input = args === undefined ? '{"p0": ' : JSON.stringify(args);
        switch (shape) {
          case 'words':
            return `Action: ${model.name.split('').join(' ')}\nAction Input: ${input}`;
          case 'html':
            return `<p>Action: ${model.name}</p><p>Action Input: ${input}</p>`;
          case 'invoking':
            return `Invoking: \`${model.name}\` with \`${input}\``;
          case 'call':
            return args === undefined
              ? `Action: ${model.name}\nAction Input: ${input}`
              : `${model.name}(${Object.entries(args)
                  .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
                  .join(', ')})`;
          case 'none':
            return `Action: ${model.name}\nAction Input: None`;
          default:
            return `Action: ${model.name}\nAction Input: ${input}`;
        }
      });
    return fc.oneof(written, ...plain).map((call) => `${call}\nObservation: ok`);
  });
  return fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constantFrom('', 'done', 'done: paid a', 'Alice', 'b', 'Bob Smith got 5'),
    },
    {
      weight: 2,
      arbitrary: fc
        .array(shown, { minLength: 1, maxLength: 2 })
        .map((calls) => `I did it.\n${calls.join('\n')}\nFinal Answer: done`),
    },
    { weight: 1, arbitrary: fc.constant('Action: Nope\nAction Input: {}') },
  );
}

function proposalArb(
  models: readonly PredicateModel[],
  heads: readonly string[],
  answers = false,
): fc.Arbitrary<unknown> {
  const states = models.filter((model) => model.kind === 'state');
  const actions = models.filter((model) => model.kind === 'action');
  const pools = answers ? bindingValues : inputValues;
  const actionArb = fc.constantFrom(...actions).chain((model) =>
    valuesArb(
      model.variables,
      true,
      // With bindings, arguments are left out more often: a guard's binder then has none.
      answers
        ? model.variables.slice(0, 1).map((variable) => variable.name)
        : model.variables.map((variable) => variable.name),
      pools,
    ).map((args) => ({ name: model.name, args })),
  );
  const objectiveArb = fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom(...heads) },
    { weight: 1, arbitrary: fc.constantFrom('Nope', 'Done') },
  );
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant({ finish: true }) },
    {
      weight: answers ? 4 : 0,
      arbitrary: answerArb(models, pools).map((answer) => ({ finish: true, answer })),
    },
    {
      weight: answers ? 1 : 0,
      arbitrary: fc.constantFrom(
        { ask: 'Which Alice?' },
        { ask: 'Which Alice?', finish: true },
        { answer: 'a' },
        { finish: true, answer: 5 },
      ),
    },
    { weight: 5, arbitrary: actionArb.map((proposed) => ({ action: proposed })) },
    { weight: 5, arbitrary: updatesArb(states, pools).map((updates) => ({ updates })) },
    { weight: 4, arbitrary: objectiveArb.map((objective) => ({ objective })) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(objectiveArb, updatesArb(states, pools))
        .map(([objective, updates]) => ({ objective, updates })),
    },
    {
      weight: 3,
      arbitrary: fc
        .tuple(actionArb, updatesArb(states, pools))
        .map(([proposed, updates]) => ({ action: proposed, updates })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(actionArb, objectiveArb)
        .map(([proposed, objective]) => ({ action: proposed, objective })),
    },
    { weight: 1, arbitrary: fc.constant({}) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        { action: { name: 'Nope' } },
        { finish: true, objective: heads[0] },
        { finish: 'yes' },
        'text',
      ),
    },
  );
}

type TraceEvent =
  | { readonly propose: unknown; readonly label: string }
  | { readonly observe: unknown }
  | { readonly resolve: boolean };

function traceArb(
  models: readonly PredicateModel[],
  heads: readonly string[],
  answers = false,
): fc.Arbitrary<TraceEvent[]> {
  const states = models.filter((model) => model.kind === 'state');
  return fc
    .tuple(
      fc.array(proposalArb(models, heads, answers), { minLength: 2, maxLength: 6 }),
      fc.array(
        updatesArb(states, answers ? bindingValues : inputValues).map((updates) => ({ updates })),
        { minLength: 1, maxLength: 3 },
      ),
    )
    .chain(([proposals, observations]) =>
      fc.array(
        fc.oneof(
          {
            weight: 8,
            arbitrary: fc
              .tuple(fc.nat({ max: proposals.length - 1 }), fc.nat({ max: 3 }))
              .map(([index, label]) => ({ propose: proposals[index], label: `step ${label}` })),
          },
          {
            weight: 3,
            arbitrary: fc
              .nat({ max: observations.length - 1 })
              .map((index) => ({ observe: observations[index] })),
          },
          { weight: 2, arbitrary: fc.boolean().map((approved) => ({ resolve: approved })) },
        ),
        { minLength: 3, maxLength: 16 },
      ),
    );
}

interface World {
  readonly models: readonly PredicateModel[];
  /** A schema given as declarations (records), instead of one made from `models`. */
  readonly schema?: Schema;
  readonly spec: SpecModel;
  readonly trace: readonly TraceEvent[];
  readonly escalateAfter: number;
  readonly unplannedCritical: 'revise' | 'confirm';
  /** The operator's policy (LANGUAGE.md §8), as text; absent: the intent alone. */
  readonly policy?: string | undefined;
}

/**
 * A policy (LANGUAGE.md §8) over the world's schema: guards, and permissions — rules with
 * an action, labelled `Pol<n>` with heads `Q<n>` so that neither clashes with the intent's.
 */
function policyArb(models: readonly PredicateModel[]): fc.Arbitrary<string> {
  const states = models.filter((model) => model.kind === 'state');
  const actions = models.filter((model) => model.kind === 'action');
  const guard = fc
    .record({ mode: fc.constantFrom('reject', 'confirm'), pattern: patternArb(models, 1) })
    .map(({ mode, pattern }) => `${mode} ${pattern}`);
  const permission = (index: number) =>
    fc
      .record({
        confirm: fc.constantFrom('', '', '', '@confirm\n'),
        repeat: fc.constantFrom('', '', '@repeat\n', '@repeat(2)\n'),
        states: fc.array(v2StatePatternArb(states), { maxLength: 1 }),
        action: actionPatternArb(actions, 2),
        earlier: fc.option(
          fc.constantFrom(...Array.from({ length: index + 1 }, (_, n) => `Q${n}`)),
          {
            nil: undefined,
            freq: 5,
          },
        ),
      })
      .map(
        ({ confirm, repeat, states: patterns, action, earlier }) =>
          `${confirm}${repeat}Pol${index}: ${[...(earlier !== undefined && earlier !== `Q${index}` ? [earlier] : []), ...patterns, action.text].join(' & ')} -> Q${index}`,
      );
  if (actions.length === 0)
    return fc.array(guard, { maxLength: 2 }).map((items) => items.join('\n'));
  return fc
    .tuple(
      fc.array(guard, { maxLength: 2 }),
      fc
        .integer({ min: 0, max: 3 })
        .chain((count) =>
          count === 0
            ? fc.constant([] as string[])
            : fc.tuple(...Array.from({ length: count }, (_, index) => permission(index))),
        ),
    )
    .map(([guards, permissions]) => [...permissions, ...guards].join('\n'));
}

const worldArb = (
  schemas: fc.Arbitrary<PredicateModel[]>,
  profile: SpecProfile,
  withPolicy = false,
): fc.Arbitrary<World> =>
  schemas.chain((models) =>
    specArb(models, profile).chain((spec) =>
      fc.record({
        models: fc.constant(models),
        spec: fc.constant(spec),
        trace: traceArb(models, spec.heads, profile.bindings === true),
        escalateAfter: fc.constantFrom(0, 1, 2, 3),
        unplannedCritical: fc.constantFrom('revise' as const, 'confirm' as const),
        policy: withPolicy ? policyArb(models) : fc.constant(undefined),
      }),
    ),
  );

/** One state and one action whose arguments rules pin with `=`: many rules per action. */
const oneActionSchemaArb: fc.Arbitrary<PredicateModel[]> = fc
  .record({
    state: variablesArb('v', 1, 2),
    parameters: fc
      .array(fc.constantFrom<TypeName>('number', 'text', 'enum', 'boolean', 'date', 'datetime'), {
        minLength: 1,
        maxLength: 2,
      })
      .map((types) => types.map((type, index) => ({ name: `p${index}`, type }))),
    critical: fc.boolean(),
  })
  .map(({ state: variables, parameters, critical }) => [
    { name: 'S0', kind: 'state', variables, keyed: false, critical: false },
    { name: 'A0', kind: 'action', variables: parameters, keyed: false, critical },
  ]);

/**
 * A tool with one parameter, so that its results are keyed by the call's argument
 * (FORMATS.md §1): each distinct call keeps its own result, a repeated one replaces its
 * own, and one observed without the argument is keyed as "not given".
 */
const keyedResultsSchemaArb: fc.Arbitrary<PredicateModel[]> = fc
  .record({
    parameter: fc.constantFrom<TypeName>('number', 'text', 'enum'),
    results: variablesArb('r', 1, 2, ['number', 'number', 'text', 'boolean']),
    critical: fc.boolean(),
  })
  .map(({ parameter, results, critical }) => {
    const parameters = [{ name: 'q0', type: parameter }];
    // The results are the only state: every state atom of a rule reads them.
    return [
      { name: 'T', kind: 'action', variables: parameters, keyed: false, critical },
      {
        name: 'TResult',
        kind: 'state',
        variables: [...parameters, ...results, { name: 'items', type: 'list<json>' }],
        keyed: false,
        critical: false,
        resultOf: 'T',
        keys: ['q0'],
      },
    ] satisfies PredicateModel[];
  });

/**
 * The binding schemas plus `G`, a critical action given a list of records (a tool's
 * array-of-objects argument) and a scalar, for guards that bind inside a filter.
 */
const filterGuardSchemaArb: fc.Arbitrary<PredicateModel[]> = fc
  .tuple(bindingSchemaArb, fc.constantFrom<TypeName>('text', 'number'))
  .map(([models, type]) => [
    ...models,
    {
      name: 'G',
      kind: 'action',
      variables: [
        { name: 'items', type: 'list<json>' },
        { name: 'p0', type },
      ],
      keyed: false,
      critical: true,
    } satisfies PredicateModel,
  ]);

/** Guards on `G` whose one pattern binds inside a filter, or compares a filter with a binding. */
function filterGuardArb(models: readonly PredicateModel[]): fc.Arbitrary<string> {
  const type = models.find((model) => model.name === 'G')?.variables[1]?.type;
  const guards =
    type === 'number'
      ? [
          'G(items[n = $g], p0 = $g)',
          'G(items[s = "a", n = $g], p0 > $g)',
          'G(items[n >= 1, n = $g], p0 != $g)',
          'G(p0 = $g, items[n <= $g])',
          'G(p0 = $g, count(items[n > $g]) = 0)',
        ]
      : [
          'G(items[s = $g], p0 = $g)',
          'G(items[n >= 1, s = $g], p0 = $g)',
          'G(items[s = $g], p0 != $g)',
          'G(p0 = $g, items[s = $g])',
          'G(p0 = $g, count(items[s = $g]) >= 1)',
        ];
  return fc
    .tuple(fc.constantFrom('reject', 'confirm'), fc.constantFrom(...guards))
    .map(([mode, guard]) => `${mode} ${guard}`);
}

// ---- records (docs/language.md "Records") ---------------------------------------------

const recordShape = {
  fields: [
    { name: 'n', type: { kind: 'number' }, required: true },
    { name: 's', type: { kind: 'text' } },
    { name: 'd', type: { kind: 'date' } },
  ],
} as const;

/** The same fields in an open object (JSON Schema's default): undeclared fields are ignored (T4). */
const openRecordShape = { ...recordShape, open: true } as const;

/** A tool whose result has a record and a list of records, and an action given a record. */
const recordSchema: Schema = schemaOf([
  state('S0', { v0: 'number' }),
  action(
    'R',
    {
      arg: { type: 'text', jsonText: true, record: recordShape },
      k: 'number',
      legs: { type: 'list<text>', jsonText: true, record: openRecordShape },
    },
    { critical: true },
  ),
  action('T', { q0: 'number' }, { resultPredicate: 'TResult' }),
  state(
    'TResult',
    {
      q0: 'number',
      rec: { type: 'text', jsonText: true, record: recordShape },
      recs: { type: 'list<text>', jsonText: true, record: recordShape },
    },
    { keys: ['q0'], resultOf: 'T' },
  ),
]);
const recordModels: PredicateModel[] = [
  {
    name: 'S0',
    kind: 'state',
    variables: [{ name: 'v0', type: 'number' }],
    keyed: false,
    critical: false,
  },
];

const recordAtoms = [
  'TResult(rec.n >= 2)',
  'TResult(rec.n = 1, rec.s = "a")',
  'TResult(rec.s != "b")',
  'TResult(rec.d >= 2025-03-14)',
  'TResult(rec.d < today)',
  'TResult(count(recs[n >= 1]) >= 2)',
  'TResult(any(recs.s) = "a")',
  'TResult(each(recs.n) <= 2)',
  'TResult(any(recs[s = "a"].n) = 1)',
  'not TResult(rec.n >= 5)',
  'not TResult(rec.s = "b")',
  'not TResult(count(recs[n > 1]) >= 1)',
  'TResult(q0 = 1, rec.n >= 1)',
  'S0(v0 >= 1)',
];
/** Bindings through record fields: values read by the field's type, joined with arguments. */
const recordBindingBodies = [
  'TResult(rec.n = $x) & R(arg.n = $x)',
  'TResult(rec.n = $x) & R(k <= $x)',
  'TResult(rec.d = $x) & R(arg.d = $x)',
  'TResult(recs[s = "a", n = $x]) & R(k = $x)',
  'TResult(recs.n = $x) & R(arg.n = $x)',
  'R(arg.s = $x) & TResult(recs[s = $x])',
  'R(arg.n = $x) & not TResult(recs[n = $x])',
  'R(k = $x) & TResult(count(recs[n <= $x]) >= 1)',
];
const recordActions = [
  'R(arg.n = 1)',
  'R(count(legs[n >= 1]) >= 1)',
  'R(arg.s = "a", k >= 1)',
  'R(arg.d >= 2025-03-14)',
  'R()',
  'T(q0 = 1)',
  'T()',
];
const recordGuards = [
  'reject R(arg.n > 5)',
  'reject R(arg.s = "mallory")',
  'confirm R(arg.d < 2025-03-14)',
  'reject R(k > 2, arg.n >= 1)',
  'reject R(any(legs.s) = "mallory")',
  'reject T(q0 = 9)',
];

const recordValues = [
  { n: 1, s: 'a', d: '2025-03-14' },
  { n: 2, s: 'b' },
  { n: '5', s: 'A' },
  { n: 'calm', s: 'a' },
  { s: 'a' },
  { n: 1, s: ['a'] },
  { n: 6, d: 'soon' },
  { n: 1, extra: true },
  'x',
];
const recordListValues = [
  [],
  [{ n: 1, s: 'a' }],
  [
    { n: 2, s: 'b' },
    { n: 1, s: 'a', d: '2025-03-13' },
  ],
  [{ n: 'x' }],
  [{ n: 3 }, { s: 'a' }],
  { n: 1 },
];
/** Lists of records with fields the open shape does not declare, one that reads like `n`. */
const openListValues = [
  ...recordListValues,
  [{ n: 1, s: 'mallory', seat: '14C' }],
  [{ n: 2, extra: { any: true } }],
  [{ n: 1, N: 2 }],
  [{ s: 'a', extra: 1 }],
];

const recordSpecArb: fc.Arbitrary<SpecModel> = fc
  .tuple(
    fc.array(
      fc.tuple(
        fc.array(fc.constantFrom(...recordAtoms), { minLength: 1, maxLength: 2 }),
        fc.option(fc.constantFrom(...recordActions), { nil: undefined }),
        fc.constantFrom('O0', 'O1'),
        fc.boolean(),
      ),
      { minLength: 1, maxLength: 3 },
    ),
    fc.array(fc.constantFrom(...recordAtoms), { maxLength: 1 }),
    fc.array(fc.constantFrom(...recordGuards), { maxLength: 2 }),
    fc.option(fc.constantFrom(...recordBindingBodies), { nil: undefined, freq: 2 }),
  )
  .map(([rules, done, guards, bound]) => ({
    text: [
      ...rules.map(
        ([atoms, act, head, repeat]) =>
          `${repeat ? '@repeat\n' : ''}${[...atoms, ...(act ? [act] : [])].join(' & ')} -> ${head}`,
      ),
      ...(bound ? [`@repeat\n${bound} -> O1`] : []),
      `${['O0', ...done].join(' & ')} -> Done`,
      ...guards,
    ].join('\n'),
    heads: ['O0', 'O1'],
  }));

const recordTraceArb: fc.Arbitrary<TraceEvent[]> = fc.array(
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .record({
          arg: fc.option(fc.constantFrom<unknown>(...recordValues), { nil: undefined }),
          k: fc.option(fc.constantFrom(0, 1, 3), { nil: undefined }),
          legs: fc.option(fc.constantFrom<unknown>(...openListValues), { nil: undefined }),
          objective: fc.option(fc.constantFrom('O0', 'O1'), { nil: undefined }),
        })
        .map(({ arg, k, legs, objective }) => ({
          propose: {
            action: {
              name: 'R',
              args: {
                ...(arg !== undefined ? { arg } : {}),
                ...(k !== undefined ? { k } : {}),
                ...(legs !== undefined ? { legs } : {}),
              },
            },
            ...(objective ? { objective } : {}),
          },
          label: 'step 0',
        })),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(1, 2, 9).map((q0) => ({
        propose: { action: { name: 'T', args: { q0 } } },
        label: 'step 1',
      })),
    },
    {
      weight: 4,
      arbitrary: fc
        .record({
          q0: fc.option(fc.constantFrom(1, 2), { nil: undefined }),
          rec: fc.option(fc.constantFrom<unknown>(...recordValues), { nil: undefined }),
          recs: fc.option(fc.constantFrom<unknown>(...recordListValues), { nil: undefined }),
        })
        .map((values) => ({
          observe: {
            updates: {
              TResult: Object.fromEntries(
                Object.entries(values).filter(([, value]) => value !== undefined),
              ),
            },
          },
        })),
    },
    { weight: 1, arbitrary: fc.constant({ observe: { updates: { S0: { v0: 2 } } } }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('O0', 'O1').map((objective) => ({
        propose: { objective },
        label: 'step 2',
      })),
    },
    { weight: 1, arbitrary: fc.constant({ propose: { finish: true }, label: 'step 3' }) },
    { weight: 1, arbitrary: fc.boolean().map((approved) => ({ resolve: approved })) },
  ),
  { minLength: 3, maxLength: 14 },
);

/** Whether a trace observes results of two distinct calls (two keys of TResult). */
function observesDistinctCalls(trace: readonly TraceEvent[]): boolean {
  const keys = new Set<string>();
  for (const event of trace) {
    if (!('observe' in event)) continue;
    const updates = (event.observe as { updates?: unknown }).updates;
    if (typeof updates !== 'object' || updates === null || Array.isArray(updates)) continue;
    const result = (updates as Record<string, unknown>)['TResult'];
    if (typeof result !== 'object' || result === null) continue;
    keys.add(JSON.stringify((result as Record<string, unknown>)['q0'] ?? null));
  }
  return keys.size >= 2;
}

// ---- the comparison -------------------------------------------------------------------

function engineView(verdict: Verdict): ReferenceVerdict {
  return {
    decision: verdict.decision,
    ...(verdict.severity ? { severity: verdict.severity } : {}),
    ...(verdict.reasons[0] ? { code: verdict.reasons[0].code } : {}),
    performs: [...verdict.performs].sort(),
    achieved: verdict.achieved,
    done: verdict.done,
  };
}

function referenceView(verdict: ReferenceVerdict): ReferenceVerdict {
  return { ...verdict, performs: [...verdict.performs].sort() };
}

const statistics = {
  v2: new Set<string>(),
  /** The §7 forms of the left side that rules used: count, any, each, filter, projection. */
  access: new Set<string>(),
  /** The §7 forms of bindings, arithmetic, len, count(… matches …) and Answer that specs used. */
  bound: new Set<string>(),
  /** Worlds whose rules read `items` and whose trace gives `items` some records. */
  jsonWorlds: 0,
  worlds: 0,
  discarded: 0,
  steps: 0,
  pinnedActions: 0,
  /** Worlds whose trace observes the results of two distinct calls of the tool. */
  distinctCalls: 0,
  /** Worlds with a policy (LANGUAGE.md §8). */
  policies: 0,
  decisions: new Map<string, number>(),
};

/** Whether some action has 4+ rules, 2+ of which pin one argument with `=` (what an index would use). */
function hasPinnedAction(spec: Spec): boolean {
  const byAction = new Map<string, CheckedRule[]>();
  for (const rule of spec.rules) {
    if (rule.action)
      byAction.set(rule.action.predicate.name, [
        ...(byAction.get(rule.action.predicate.name) ?? []),
        rule,
      ]);
  }
  return [...byAction.values()].some((rules) => {
    if (rules.length < 4) return false;
    const pins = rules.flatMap((rule) =>
      (rule.action?.constraints ?? [])
        .filter((constraint) => constraint.operator === '=')
        .map((constraint) => constraint.variable.name),
    );
    return pins.some((name, index) => pins.indexOf(name) !== index);
  });
}

function runWorld(world: World): void {
  const schema = world.schema ?? schemaFrom(world.models);
  const checked = checkSpec(world.spec.text, schema);
  if (!checked.ok) {
    statistics.discarded++;
    return;
  }
  statistics.worlds++;
  if (hasPinnedAction(checked.value)) statistics.pinnedActions++;
  for (const rule of checked.value.rules) {
    if (rule.negations) statistics.v2.add('not P');
    if (rule.objectives.some((condition) => condition.negated)) statistics.v2.add('not O');
    if (rule.action?.absent) statistics.v2.add('absent');
    if (rule.alternative) statistics.v2.add('disjunction');
    if (rule.repeat?.per) statistics.v2.add('per');
  }
  const patterns = [
    ...checked.value.rules.flatMap((rule) => [
      ...rule.states,
      ...(rule.negations ?? []),
      ...(rule.action ? [rule.action] : []),
    ]),
  ];
  for (const pattern of patterns) {
    if (pattern.predicate.name === 'Answer') statistics.bound.add('Answer');
    for (const constraint of pattern.constraints) {
      const binding = constraint.binding;
      if (constraint.access?.function === 'len') statistics.bound.add('len');
      const fn = constraint.access?.function;
      if (binding !== undefined && (fn === 'sum' || fn === 'min' || fn === 'max'))
        statistics.bound.add('aggregate binding');
      if (binding !== undefined && constraint.access?.steps.some((step) => step.kind === 'index'))
        statistics.bound.add('position binding');
      if (constraint.node?.subject?.matches) statistics.bound.add('count matches');
      for (const step of constraint.access?.steps ?? []) {
        if (step.kind !== 'filter') continue;
        for (const inner of step.constraints) {
          if (inner.binding?.binds) statistics.bound.add('binder in filter');
          else if (inner.binding) statistics.bound.add('use in filter');
        }
      }
      if (binding === undefined) continue;
      statistics.bound.add(binding.kind === undefined ? 'json binding' : 'binding');
      if (checked.value.rules.some((rule) => rule.negations?.includes(pattern)))
        statistics.bound.add('binding in not');
      const computed = binding.arithmetic;
      if (computed === undefined) continue;
      const temporal = ['date', 'time', 'datetime'].includes(binding.kind ?? '');
      statistics.bound.add(temporal ? 'duration' : 'arithmetic');
      if (computed.kind === 'operation' && computed.left.kind === 'operation')
        statistics.bound.add('chain');
      if (
        computed.kind === 'operation' &&
        computed.operator === '/' &&
        computed.right.kind === 'number' &&
        String(computed.right.value) === '0'
      )
        statistics.bound.add('division by zero');
    }
  }
  if (checked.value.guards.some((guard) => guard.pattern.constraints.some((c) => c.binding)))
    statistics.bound.add('binding guard');
  const accesses = checked.value.rules.flatMap((rule) =>
    rule.states.flatMap((pattern) => pattern.constraints.flatMap((c) => c.access ?? [])),
  );
  for (const access of accesses) {
    if (access.function) statistics.access.add(access.function);
    for (const step of access.steps) {
      statistics.access.add(
        step.kind === 'filter' ? 'filter' : step.kind === 'index' ? 'position' : 'projection',
      );
      if (step.kind === 'filter' && step.constraints.some((c) => c.node?.subject?.as))
        statistics.access.add('as');
    }
  }
  if (accesses.length > 0 && /"items":\[\{/.test(JSON.stringify(world.trace)))
    statistics.jsonWorlds++;
  const policy = world.policy === undefined ? undefined : checkPolicy(world.policy, schema);
  if (policy !== undefined && !policy.ok) {
    statistics.discarded++;
    return;
  }
  if (policy !== undefined) statistics.policies++;
  const options: ReferenceOptions = {
    now: fixedNow,
    similarity: lexicalSimilarity,
    threshold: 0.75,
    escalateAfter: world.escalateAfter,
    unplannedCritical: world.unplannedCritical,
    ...(policy ? { policy: policy.value } : {}),
  };
  const engine = createSession(checked.value, {
    now: options.now,
    similarity: options.similarity,
    similarityThreshold: options.threshold,
    escalateAfter: options.escalateAfter,
    unplannedCritical: options.unplannedCritical,
    ...(policy ? { policy: policy.value } : {}),
  });
  const reference = new ReferenceSession(checked.value, options);
  world.trace.forEach((event, index) => {
    const where = `step ${index + 1} (${JSON.stringify(event)})`;
    statistics.steps++;
    if ('propose' in event) {
      const proposal =
        typeof event.propose === 'object' && event.propose !== null
          ? { ...event.propose, label: event.label }
          : event.propose;
      const actual = engine.propose(proposal);
      const wanted = reference.propose(proposal);
      const key = `${wanted.decision}/${wanted.code ?? ''}`;
      statistics.decisions.set(key, (statistics.decisions.get(key) ?? 0) + 1);
      expect(engineView(actual), `${where}: ${actual.feedback}`).toEqual(referenceView(wanted));
    } else if ('observe' in event) {
      const actual = engine.observe(event.observe);
      expect(actual.ok, where).toBe(reference.observe(event.observe));
    } else {
      const actual = engine.resolve(event.resolve);
      const wanted = reference.resolve(event.resolve);
      expect({ ok: actual.ok, committed: actual.committed }, where).toEqual(wanted);
    }
    const status = engine.status();
    const wanted = reference.status();
    expect(
      {
        done: status.done,
        finished: status.finished,
        achieved: status.achieved,
        pending: status.pending,
      },
      `status after ${where}`,
    ).toEqual(wanted);
  });
}

describe('the engine agrees with the reference evaluator of LANGUAGE.md §6', () => {
  it('on compositions of an intent and a policy (LANGUAGE.md §8)', () => {
    const before = { worlds: statistics.worlds, policies: statistics.policies };
    const codes = new Set<string>();
    const counted = statistics.decisions;
    const seen = new Map(counted);
    fc.assert(fc.property(worldArb(schemaModelArb, mixedSpecs, true), runWorld), {
      numRuns: Number(process.env['DIFF_RUNS'] ?? 300),
      ...seeded,
    });
    for (const [key, count] of counted) if (count !== seen.get(key)) codes.add(key);
    // The property means something only if compositions ran and the policy decided some steps.
    expect(statistics.policies - before.policies).toBeGreaterThan(50);
    expect(statistics.worlds - before.worlds).toBeGreaterThan(50);
    expect([...codes].some((key) => key.endsWith('/policy-violation'))).toBe(true);
  }, 600_000);

  it('on random schemas, specs and traces', () => {
    // DIFF_RUNS raises the number of worlds for a longer hunt (e.g. DIFF_RUNS=20000).
    fc.assert(fc.property(worldArb(schemaModelArb, mixedSpecs), runWorld), {
      ...seeded,
      numRuns: Number(process.env['DIFF_RUNS'] ?? 600),
    });
    // The generator must mostly produce valid specs, and every decision must occur.
    expect(statistics.worlds).toBeGreaterThan(300);
    // Every v2 construct of rules (LANGUAGE.md §7) was exercised.
    expect([...statistics.v2].sort()).toEqual(['absent', 'disjunction', 'not O', 'not P', 'per']);
    // …and so was every form of structured access the generator writes, on real records.
    expect([...statistics.access].sort()).toEqual([
      'any',
      'as',
      'count',
      'each',
      'filter',
      'max',
      'min',
      'position',
      'projection',
      'sum',
    ]);
    expect(statistics.jsonWorlds).toBeGreaterThan(10);
    const codes = new Set([...statistics.decisions.keys()]);
    for (const expected of [
      'allow/',
      'confirm/rule-confirm',
      'confirm/guard-confirm',
      'confirm/repeated-violation',
      'confirm/unplanned-critical',
      'revise/unmet-conditions',
      'revise/soft-deviation',
      'revise/unplanned-change',
      'revise/premature-finish',
      'revise/already-achieved',
      'revise/unplanned-critical',
      'revise/invalid-proposal',
      'reject/guard-reject',
    ]) {
      expect(codes, `no step was decided ${expected}`).toContain(expected);
    }
  }, 600_000);

  it('on specs with many rules over one action (the argument index)', () => {
    const before = statistics.pinnedActions;
    fc.assert(fc.property(worldArb(oneActionSchemaArb, actionHeavySpecs), runWorld), {
      ...seeded,
      numRuns: Math.ceil(Number(process.env['DIFF_RUNS'] ?? 600) / 2),
    });
    expect(statistics.pinnedActions - before).toBeGreaterThan(30);
  }, 600_000);

  it("on tool results keyed by the call's arguments", () => {
    const before = statistics.distinctCalls;
    const worlds = statistics.worlds;
    fc.assert(
      fc.property(worldArb(keyedResultsSchemaArb, mixedSpecs), (world) => {
        if (observesDistinctCalls(world.trace)) statistics.distinctCalls++;
        runWorld(world);
      }),
      { ...seeded, numRuns: Number(process.env['DIFF_RUNS'] ?? 800) },
    );
    expect(statistics.worlds - worlds).toBeGreaterThan(400);
    expect(statistics.distinctCalls - before).toBeGreaterThan(100);
  }, 600_000);

  it('on records: typed fields of results and arguments', () => {
    const before = new Map(statistics.decisions);
    const worlds = statistics.worlds;
    const recordWorlds = fc.record({
      models: fc.constant(recordModels),
      schema: fc.constant(recordSchema),
      spec: recordSpecArb,
      trace: recordTraceArb,
      escalateAfter: fc.constantFrom(0, 1, 2, 3),
      unplannedCritical: fc.constantFrom('revise' as const, 'confirm' as const),
    });
    fc.assert(fc.property(recordWorlds, runWorld), {
      ...seeded,
      numRuns: Number(process.env['DIFF_RUNS'] ?? 600),
    });
    expect(statistics.worlds - worlds).toBeGreaterThan(300);
    const grew = (key: string) => (statistics.decisions.get(key) ?? 0) - (before.get(key) ?? 0);
    // Record arguments that do not fit were refused, guards on fields fired, rules fired.
    expect(grew('revise/invalid-proposal')).toBeGreaterThan(50);
    expect(grew('reject/guard-reject')).toBeGreaterThan(20);
    expect(grew('allow/')).toBeGreaterThan(100);
  }, 600_000);

  it('on guards that bind inside a filter', () => {
    const guardDecisions = () =>
      (statistics.decisions.get('reject/guard-reject') ?? 0) +
      (statistics.decisions.get('confirm/guard-confirm') ?? 0);
    const before = guardDecisions();
    const worlds = statistics.worlds;
    const filterGuardWorlds = filterGuardSchemaArb.chain((models) =>
      specArb(models, bindingSpecs).chain((spec) =>
        fc.record({
          models: fc.constant(models),
          spec: fc
            .array(filterGuardArb(models), { minLength: 1, maxLength: 2 })
            .map((guards) => ({ ...spec, text: [spec.text, ...guards].join('\n') })),
          trace: traceArb(models, spec.heads, true),
          escalateAfter: fc.constantFrom(0, 1, 2, 3),
          unplannedCritical: fc.constantFrom('revise' as const, 'confirm' as const),
        }),
      ),
    );
    fc.assert(fc.property(filterGuardWorlds, runWorld), {
      ...seeded,
      numRuns: Number(process.env['DIFF_RUNS'] ?? 600),
    });
    expect(statistics.worlds - worlds).toBeGreaterThan(300);
    // The guards fired on the traces (and, where they did not, the proposals were decided
    // by the rules — both sides compared at every step).
    expect(guardDecisions() - before).toBeGreaterThan(50);
  }, 600_000);

  it('on specs with bindings, arithmetic, lengths, counts of matches and answers', () => {
    const before = new Map(statistics.decisions);
    const worlds = statistics.worlds;
    fc.assert(fc.property(worldArb(bindingSchemaArb, bindingSpecs), runWorld), {
      ...seeded,
      numRuns: Number(process.env['DIFF_RUNS'] ?? 1000),
    });
    expect(statistics.worlds - worlds).toBeGreaterThan(400);
    expect([...statistics.bound].sort()).toEqual([
      'Answer',
      'aggregate binding',
      'arithmetic',
      'binder in filter',
      'binding',
      'binding guard',
      'binding in not',
      'chain',
      'count matches',
      'division by zero',
      'duration',
      'json binding',
      'len',
      'position binding',
      'use in filter',
    ]);
    // Rules and guards with bindings both held and failed on the traces.
    // (Typical counts over 1,000 worlds: 20–150 fired, 300–900 failed, 90–140 guards judged
    // on bound values, 5–20 fired on a binder with none; the bounds leave room for chance.)
    expect(referenceCoverage.boundFired).toBeGreaterThan(5);
    expect(referenceCoverage.boundFailed).toBeGreaterThan(100);
    expect(referenceCoverage.guardBound).toBeGreaterThan(20);
    expect(referenceCoverage.guardUnbound).toBeGreaterThan(0);
    const grew = (code: string) => (statistics.decisions.get(code) ?? 0) - (before.get(code) ?? 0);
    for (const code of ['allow/', 'revise/fabricated-action', 'revise/premature-finish'])
      expect(grew(code), `no step was decided ${code}`).toBeGreaterThan(0);
  }, 600_000);

  it('on a hand-written world with joins, arithmetic, durations, lengths and answers', () => {
    const variable = (name: string, type: TypeName): VariableModel => ({ name, type });
    const models: PredicateModel[] = [
      {
        name: 'S0',
        kind: 'state',
        variables: [variable('v0', 'number'), variable('v1', 'text'), variable('v2', 'time')],
        keyed: false,
        critical: false,
      },
      { name: 'T', kind: 'action', variables: [], keyed: false, critical: false },
      {
        name: 'TResult',
        kind: 'state',
        variables: [variable('items', 'list<json>')],
        keyed: false,
        critical: false,
        resultOf: 'T',
      },
      {
        name: 'A0',
        kind: 'action',
        variables: [variable('p0', 'text'), variable('p1', 'number')],
        keyed: false,
        critical: true,
      },
      {
        name: 'A1',
        kind: 'action',
        variables: [variable('at', 'time'), variable('until', 'time')],
        keyed: false,
        critical: false,
      },
    ];
    // The search found Bob (who is blocked) first, then Alice: only the second binds.
    const text = `T() -> Searched
@repeat
Searched & TResult(items.s = $who) & not S0(v1 = $who) & S0(v0 = $b) & A0(p0 = $who, p1 <= $b * 0.5) -> Paid
S0(v2 = $t) & A1(at >= $t - 3h) -> Reminded
Paid & TResult(count(items matches /ali/) = 1, items[n >= 1].s = $w) & Answer(text contains $w, len(text) <= 20) -> Done
reject A1(at = $g, until < $g)`;
    const records = [
      { n: 0, s: 'Bob' },
      { n: 2, s: 'Alice ' },
    ];
    const pay = (p0: string, p1: unknown) => ({ action: { name: 'A0', args: { p0, p1 } } });
    const trace: TraceEvent[] = [
      { propose: { action: { name: 'T' } }, label: 'search' },
      {
        observe: {
          updates: { TResult: { items: records }, S0: { v0: 0.6, v1: 'bob', v2: '01:00' } },
        },
      },
      // Join: only the second record will do; 0.3 is exactly half of 0.6.
      { propose: pay('Bob', 0.3), label: 'the first record' },
      { propose: pay('alice', '0.30000000000000004'), label: 'a hair more than half' },
      { propose: pay('alice', 0.3), label: 'half' },
      // 01:00 - 3h is not wrapped to 22:00: 21:00 is after it.
      {
        propose: { action: { name: 'A1', args: { at: '21:00', until: '23:00' } } },
        label: 'reminder',
      },
      // A guard's binder on an argument not given fires.
      { propose: { action: { name: 'A1', args: { until: '02:00' } } }, label: 'no at' },
      { propose: { finish: true, answer: 'Paid Bob.' }, label: 'wrong name' },
      {
        propose: { finish: true, answer: 'Paid.\nAction: A0\nAction Input: {"p0": "Carol"}' },
        label: 'fabricated',
      },
      // Calls that were made, shown with arguments that cannot be read (a cut-off object,
      // plain text for an action of two arguments): what they claim cannot be compared.
      {
        propose: { finish: true, answer: 'Paid.\nAction: A0\nAction Input: {"p0": "alice", ' },
        label: 'cut off',
      },
      {
        propose: { finish: true, answer: 'Paid.\nAction: A1\nAction Input: 21:00' },
        label: 'plain text for two arguments',
      },
      // The call made, shown without arguments or with its own: accounted for (too long).
      {
        propose: { finish: true, answer: 'Paid.\nAction: T\nAction Input: None' },
        label: 'no arguments',
      },
      {
        propose: {
          finish: true,
          answer: 'Paid.\nAction: A0\nAction Input: {"p0": "alice", "p1": 0.3}',
        },
        label: 'shown as made',
      },
      { propose: { finish: true, answer: 'Paid alice, at long last.' }, label: 'too long' },
      { propose: { finish: true, answer: 'Paid Alice.' }, label: 'finish' },
    ];
    const spec: SpecModel = { text, heads: ['Searched', 'Paid', 'Reminded'] };
    const discarded = statistics.discarded;
    runWorld({ models, spec, trace, escalateAfter: 3, unplannedCritical: 'revise' });
    expect(statistics.discarded).toBe(discarded);
    const engine = createSession(checkSpec(text, schemaFrom(models)).value!, { now: fixedNow });
    const verdicts = trace.map((event) => {
      if (!('propose' in event))
        return 'observe' in event ? `observe:${engine.observe(event.observe).ok}` : 'resolve';
      const verdict = engine.propose(event.propose);
      return `${verdict.decision}${verdict.reasons[0] ? `/${verdict.reasons[0].code}` : ''}`;
    });
    expect(verdicts).toEqual([
      'allow',
      'observe:true',
      'revise/unmet-conditions',
      'revise/unmet-conditions',
      'allow',
      'allow',
      'reject/guard-reject',
      'revise/premature-finish',
      'revise/fabricated-action',
      'revise/fabricated-action',
      'revise/fabricated-action',
      'revise/premature-finish',
      'revise/premature-finish',
      'revise/premature-finish',
      'allow',
    ]);
  });

  it('on a hand-written world with the deny-list reading: not P(…), @repeat(per:), guards', () => {
    const models: PredicateModel[] = [
      {
        name: 'B',
        kind: 'state',
        variables: [
          { name: 'senders', type: 'list<text>' },
          { name: 'who', type: 'text' },
        ],
        keyed: false,
        critical: false,
        observed: true,
      },
      {
        name: 'A0',
        kind: 'action',
        variables: [
          { name: 'p0', type: 'text' },
          { name: 'p1', type: 'text' },
        ],
        keyed: false,
        critical: true,
      },
    ];
    const text = `@repeat(per: p0)
A0(p0 = $t, p1 = "mail") & not B(senders contains $t) & not B(who = "mallory") -> O0
@repeat
A0(p1 = "item") -> O1
O0 -> Done
reject A0(p1 = "item", p0 not matches /sony/)
reject A0(p1 = "item", p0 not matches /^sony/)`;
    const mail = (p0: string) => ({ action: { name: 'A0', args: { p0, p1: 'mail' } } });
    const item = (p0: string) => ({ action: { name: 'A0', args: { p0, p1: 'item' } } });
    const trace: TraceEvent[] = [
      { observe: { updates: { B: { senders: ['promo@spam.example'], who: 'x' } } } },
      { propose: mail('news@friend.example, promo@spam.example'), label: 'listed' },
      { propose: mail('Promo <promo@spam.example>'), label: 'display name' },
      { propose: mail('promo@sp\u0430m.example'), label: 'look-alike' },
      { propose: mail('+14155550123'), label: 'number' },
      { propose: mail('+1 (415) 555-0123'), label: 'the number again' },
      { propose: mail('tel:+14155550124'), label: 'another number' },
      { observe: { updates: { B: { who: 'Eve, Mallory' } } } },
      { propose: mail('reader@friend.example'), label: 'mallory listed' },
      { propose: item('Sony Bravia 55-inch TV'), label: 'sony' },
      { propose: item('sony; tv'), label: 'anchored parts' },
    ];
    const spec: SpecModel = { text, heads: ['O0', 'O1'] };
    runWorld({ models, spec, trace, escalateAfter: 9, unplannedCritical: 'revise' });
    const engine = createSession(checkSpec(text, schemaFrom(models)).value!, { now: fixedNow });
    const verdicts = trace.map((event) =>
      'propose' in event
        ? `${engine.propose(event.propose).decision}`
        : `observe:${'observe' in event && engine.observe(event.observe).ok}`,
    );
    expect(verdicts).toEqual([
      'observe:true',
      'revise',
      'revise',
      'revise',
      'allow',
      'revise',
      'allow',
      'observe:true',
      'revise',
      'allow',
      'reject',
    ]);
  });

  /**
   * A search `T` whose result holds `items` (json) and `r1` (numbers), then a critical
   * `A0` taking `a0` arguments: each spec judged on each list of items (LANGUAGE.md §9).
   */
  function runResultWorlds(
    a0: PredicateModel['variables'],
    lists: readonly unknown[][],
    specs: readonly string[],
    calls: readonly Record<string, unknown>[],
  ): void {
    const models: PredicateModel[] = [
      { name: 'T', kind: 'action', variables: [], keyed: false, critical: false },
      {
        name: 'TResult',
        kind: 'state',
        variables: [
          { name: 'items', type: 'list<json>' },
          { name: 'r1', type: 'list<number>' },
        ],
        keyed: false,
        critical: false,
        resultOf: 'T',
      },
      { name: 'A0', kind: 'action', variables: a0, keyed: false, critical: true },
    ];
    for (const text of specs) {
      const checked = checkSpec(text, schemaFrom(models));
      expect(checked.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      for (const items of lists) {
        const trace: TraceEvent[] = [
          { propose: { action: { name: 'T' } }, label: 'search' },
          { observe: { updates: { TResult: { items, r1: [0.1, 0.2] } } } },
          ...calls.map(
            (args): TraceEvent => ({
              propose: { action: { name: 'A0', args } },
              label: `pay ${String(args.p0)}`,
            }),
          ),
          { propose: { finish: true }, label: 'finish' },
        ];
        runWorld({
          models,
          spec: { text, heads: ['O0', 'O1'] },
          trace,
          escalateAfter: 3,
          unplannedCritical: 'revise',
        });
      }
    }
  }

  it('on a hand-written world with sums, least, greatest and positions (LANGUAGE.md §9)', () => {
    // Each world's items: whole numbers, decimals, an element that is no number, none.
    runResultWorlds(
      [{ name: 'p0', type: 'number' }],
      [
        [{ n: 2 }, { n: 3 }],
        [{ n: 0.1 }, { n: 0.2 }],
        [{ n: 2 }, { n: '1' }, { n: 3 }],
        [{ n: 4 }, { n: null }],
        [],
      ],
      [
        'T() -> O0\nO0 & TResult(sum(items.n) <= 5) & A0() -> O1\nO1 -> Done\nreject A0(p0 = 5)',
        'T() -> O0\nO0 & TResult(sum(items.n) = $t) & A0(p0 = $t) -> O1\nO1 -> Done',
        'T() -> O0\nO0 & TResult(min(items.n) >= 1, max(r1) < 9) & A0(p0 > 0) -> O1\nO1 -> Done',
        'T() -> O0\nO0 & TResult(items[-1].n = $x, items[0].n < $x) & A0(p0 = $x) -> O1\nO1 -> Done',
        'T() -> O0\nO0 & TResult(sum(r1) = 0.3, r1[-1] = $y) & A0(p0 = $y) -> O1\nO1 -> Done',
      ],
      [0.3, 3, 5, 0.2].map((p0) => ({ p0 })),
    );
  });

  it('on a hand-written world with conditions on bindings, binary min/max and clock arithmetic (LANGUAGE.md §9)', () => {
    runResultWorlds(
      [
        { name: 'p0', type: 'number' },
        { name: 'p1', type: 'number' },
        { name: 'd0', type: 'date' },
      ],
      [[{ n: 2 }, { n: 3 }], [{ n: 0.1 }, { n: 0.2 }], [{ n: 2 }, { n: '1' }, { n: 3 }], []],
      [
        'T() -> O0\nO0 & TResult(sum(items.n) = $t) & A0(p0 = $p) & $p - $t <= 1 -> O1\nO1 -> Done',
        'T() -> O0\nO0 & TResult(items.n = $x) & A0(p0 = $p, p1 = $q) & $q = max(0, $p - 2 * $x) -> O1\nO1 -> Done',
        'T() -> O0\nO0 & TResult(r1 = $r) & A0(p0 = $p) & min($p, $r) * 10 > 2 -> O1\nO1 -> Done',
        'T() -> O0\nO0 & A0(d0 = $d) & $d <= today + 2d -> O1\nO1 -> Done',
        'T() -> O0\nO0 & A0(d0 >= today - 1d) -> O1\nO1 -> Done',
        'T() -> O0\nO0 & A0() -> O1\nO1 -> Done\nreject A0(p0 = $p, p1 = $q) & $p + $q > 5 because "over"',
      ],
      [
        { p0: 0.3, p1: 0, d0: '2025-03-14' },
        { p0: 3, p1: 0, d0: '2025-03-16' },
        { p0: 5, p1: 1, d0: '2025-03-17' },
        { p0: 2.2, p1: 3, d0: '2025-03-12' },
        { p0: 4, p1: 0 },
      ],
    );
  });

  it('on a hand-written world with conditions on bindings inside not (…) and forall(…) (LANGUAGE.md §9)', () => {
    runResultWorlds(
      [{ name: 'p0', type: 'number' }],
      [
        [{ n: 2 }, { n: 3 }],
        [{ n: 0.1 }, { n: 0.2 }],
        [{ n: 2 }, { n: 'x' }, { n: 3 }],
        [{ n: 4 }, {}],
        [],
      ],
      [
        // "the least": no other element undercuts the one paid
        'T() -> O0\nO0 & TResult(items.n = $x) & not (TResult(items.n = $y) & $y < $x) & A0(p0 = $x) -> O1\nO1 -> Done',
        // every element within a bound, the conclusion conditions alone
        'T() -> O0\nO0 & forall(TResult(items.n = $x) => $x <= 3) & A0(p0 > 0) -> O1\nO1 -> Done',
        // nested: no element above 2 unless some r1 value is below it
        'T() -> O0\nO0 & not (TResult(items.n = $x) & $x > 2 & not (TResult(r1 = $r) & $r < $x)) & A0(p0 = $p) & $p < 5 -> O1\nO1 -> Done',
        // an outer binding inside: nothing above what is paid
        'T() -> O0\nO0 & A0(p0 = $p) & not (TResult(items.n = $x) & $x > $p) -> O1\nO1 -> Done',
      ],
      [0.1, 2, 3, 5].map((p0) => ({ p0 })),
    );
  });

  it('on a hand-written world with keyed instances, tool results and repeats', () => {
    const models: PredicateModel[] = [
      {
        name: 'S0',
        kind: 'state',
        variables: [{ name: 'v0', type: 'number' }],
        keyed: false,
        critical: false,
      },
      {
        name: 'K',
        kind: 'state',
        variables: [
          { name: 'id', type: 'text' },
          { name: 'w0', type: 'boolean' },
          { name: 'w1', type: 'time' },
        ],
        keyed: true,
        critical: false,
      },
      {
        name: 'A0',
        kind: 'action',
        variables: [{ name: 'p0', type: 'text' }],
        keyed: false,
        critical: true,
      },
      { name: 'T', kind: 'action', variables: [], keyed: false, critical: false },
      {
        name: 'TResult',
        kind: 'state',
        variables: [
          { name: 'r0', type: 'list<text>' },
          { name: 'r1', type: 'number' },
        ],
        keyed: false,
        critical: false,
        resultOf: 'T',
      },
    ];
    const text = `T() -> O0
@repeat(2)
O0 & TResult(r0 contains "a") & A0(p0 ~ "alice") -> O1
O1 >= 2 & K(w0 = true, w1 < 12:00) -> Done
reject A0(p0 = "Bob Smith")`;
    const proposals = [
      { action: { name: 'T' } },
      { action: { name: 'A0', args: { p0: 'Alice' } } },
      { action: { name: 'A0', args: { p0: 'Bob Smith' } } },
      { finish: true },
    ];
    const trace: TraceEvent[] = [
      { propose: proposals[1], label: 'early' },
      { propose: proposals[0], label: 'search' },
      { observe: { updates: { TResult: { r0: ['a', 'b'], r1: 3 } } } },
      { propose: proposals[1], label: 'first' },
      { propose: proposals[2], label: 'bob' },
      { observe: { updates: { TResult: { r1: 4 } } } },
      { propose: proposals[1], label: 'second without result' },
      { observe: { updates: { TResult: { r0: ['a'] } } } },
      { propose: proposals[1], label: 'second' },
      { propose: proposals[1], label: 'third' },
      { propose: proposals[3], label: 'finish' },
      {
        observe: {
          updates: {
            K: [
              { id: 'x', w0: true },
              { id: 'y', w1: '09:00' },
            ],
          },
        },
      },
      { propose: proposals[3], label: 'finish split' },
      {
        propose: { updates: [{ predicate: 'K', op: 'update', values: { id: 'x', w1: '11:00' } }] },
        label: 'fix',
      },
      { propose: proposals[3], label: 'finish' },
      {
        propose: { updates: [{ predicate: 'K', op: 'delete', values: { id: 'x' } }] },
        label: 'delete',
      },
      { propose: proposals[3], label: 'finish after delete' },
    ];
    const spec: SpecModel = { text, heads: ['O0', 'O1'] };
    runWorld({ models, spec, trace, escalateAfter: 3, unplannedCritical: 'revise' });
    const engine = createSession(checkSpec(text, schemaFrom(models)).value!, { now: fixedNow });
    const verdicts = trace.map((event) =>
      'propose' in event
        ? `${engine.propose(event.propose).decision}`
        : 'observe' in event
          ? `observe:${engine.observe(event.observe).ok}`
          : `resolve:${engine.resolve(event.resolve).ok}`,
    );
    expect(verdicts).toEqual([
      'revise',
      'allow',
      'observe:true',
      'allow',
      'reject',
      'observe:true',
      'revise',
      'observe:true',
      'allow',
      'revise',
      'revise',
      'observe:true',
      'revise',
      'allow',
      'allow',
      // After the allowed finish the session is over (LANGUAGE.md §6): session-finished.
      'reject',
      'reject',
    ]);
  });
});
