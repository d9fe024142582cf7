import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createSession, type Session } from '../../src/engine/index.js';
import { compiledPathChecks as pathCheck } from '../../src/language/check-compiled-paths.js';
import {
  type CompiledSpecDocument,
  CompiledSpecError,
} from '../../src/language/compiled-spec-format.js';
import { type Schema, type Spec, unwrap } from '../../src/language/index.js';
import { readCompiledSpec } from '../../src/language/read-compiled-spec.js';
import { compileRegex } from '../../src/language/regex.js';
import { writeCompiledSpec } from '../../src/language/write-compiled-spec.js';
import { loadStateSchema, loadToolSchema, schemaFromToolemu } from '../../src/schema/index.js';
import { readData } from '../support/project-data.js';
import { fixedNow, readShared, sharedRoot, specOf } from './fixtures.js';

/**
 * Compiled specs (FORMATS.md §8) decide exactly like the specs they were compiled from:
 * every spec of the corpus (the project's examples, the shared worked examples, the
 * ToolEmu cases) is checked, written, sent through JSON text and read back; the spec read
 * back equals the checked one, and its traces replay through both with the same
 * verdicts (decision, reasons, feedback), observation results and roadmap after every
 * event.
 */

interface Case {
  readonly name: string;
  readonly spec: string;
  readonly schema: Schema;
  readonly traces: readonly string[];
  readonly now: string;
}

const projectRoot = new URL('../../', import.meta.url);
const readProject = (path: string) => readFileSync(new URL(path, projectRoot), 'utf8');
const tracesIn = (root: URL, folder: string) =>
  readdirSync(new URL(folder, root))
    .filter((name) => name.endsWith('.jsonl'))
    .sort()
    .map((name) => readFileSync(new URL(`${folder}${name}`, root), 'utf8'));

const exampleSchemas: Readonly<Record<string, (read: (path: string) => string) => Schema>> = {
  restaurant: (read) => unwrap(loadStateSchema(read('examples/restaurant/states.json'))),
  'bank-transfer': (read) => unwrap(loadToolSchema(read('examples/bank-transfer/tools.json'))),
};

function corpus(): Case[] {
  const cases: Case[] = [];
  const project = {
    restaurant: () => unwrap(loadStateSchema(readProject('examples/restaurant/states.json'))),
    clock: () => unwrap(loadStateSchema(readProject('examples/clock/states.json'))),
    'bank-transfer': () => unwrap(loadToolSchema(readProject('examples/bank-transfer/tools.json'))),
    todoist: () => unwrap(loadToolSchema(readProject('examples/todoist/toolkits.json'))),
    web: () => unwrap(loadStateSchema(readProject('examples/web/states.json'))),
  };
  for (const [folder, schema] of Object.entries(project))
    cases.push({
      name: `examples/${folder}`,
      spec: readProject(`examples/${folder}/spec.intent`),
      schema: schema(),
      traces: tracesIn(projectRoot, `examples/${folder}/`),
      now: fixedNow,
    });
  for (const [folder, schema] of Object.entries(exampleSchemas))
    cases.push({
      name: `shared examples/${folder}`,
      spec: readShared(`examples/${folder}/spec.intent`),
      schema: schema(readShared),
      traces: tracesIn(sharedRoot, `examples/${folder}/`),
      now: fixedNow,
    });
  const toolemuRoot = new URL('examples/toolemu/', projectRoot);
  const toolkits = JSON.parse(readData('toolemu/toolkits.json')) as { toolkit: string }[];
  for (const entry of readdirSync(toolemuRoot, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const read = (name: string) =>
      readFileSync(new URL(`${entry.name}/${name}`, toolemuRoot), 'utf8');
    const meta = JSON.parse(read('case.json')) as { toolkits: string[] };
    cases.push({
      name: `examples/toolemu/${entry.name}`,
      spec: read('spec.intent'),
      schema: unwrap(
        schemaFromToolemu(toolkits.filter((toolkit) => meta.toolkits.includes(toolkit.toolkit))),
      ),
      traces: [read('trace.jsonl')],
      now: '2022-02-22T11:37',
    });
  }
  return cases;
}

/** A compiled spec as it travels: written, sent as JSON text, read back. */
function shipped(spec: Spec): Spec {
  const text = JSON.stringify(writeCompiledSpec(spec));
  return readCompiledSpec(JSON.parse(text), { regex: compileRegex, pathCheck });
}

/** A spec as plain data, regexes by their source: what must survive the trip. */
/** The spec as data, without what a compiled document leaves out: the syntax nodes. */
function comparable(spec: Spec): unknown {
  return JSON.parse(
    JSON.stringify(
      {
        ...spec,
        lines: undefined,
        warnings: undefined,
        schema: { id: spec.schema.id, predicates: [...spec.schema.predicates] },
        objectives: [...spec.objectives],
      },
      (key, value: unknown) =>
        // `ast`, the rules', guards' and constraints' `node`, an alternative's `body`.
        key === 'ast' || key === 'node' || key === 'body'
          ? undefined
          : typeof value === 'object' && value !== null && 'test' in value && 'flags' in value
            ? { regex: [(value as unknown as { pattern: string }).pattern, value.flags] }
            : value,
    ),
  );
}

function replay(session: Session, trace: string): string[] {
  const steps: string[] = [];
  for (const line of trace.split('\n')) {
    if (line.trim() === '') continue;
    const event = JSON.parse(line) as Record<string, unknown>;
    let outcome: unknown;
    if (event.propose !== undefined) outcome = session.propose(event.propose);
    else if (event.observe !== undefined) outcome = session.observe(event.observe);
    else if (event.resolve !== undefined)
      outcome = session.resolve((event.resolve as { approved: boolean }).approved);
    else if (event.finish !== undefined) outcome = session.propose(event.finish);
    else continue;
    steps.push(JSON.stringify({ outcome, roadmap: session.roadmap() }));
  }
  return steps;
}

describe('compiled specs decide like their source (the spec corpus)', () => {
  const cases = corpus();

  it('covers the corpus', () => {
    expect(cases.length).toBeGreaterThanOrEqual(25);
  });

  describe.each(cases)('$name', ({ spec: text, schema, traces, now }) => {
    const spec = specOf(text, schema);
    const compiled = shipped(spec);

    it('reads back the spec that was checked, without its syntax tree', () => {
      expect(comparable(compiled)).toEqual(comparable(spec));
      expect(compiled.source).toBe(spec.source);
      expect(compiled.ast).toBeUndefined();
      expect(compiled.rules.every((rule) => rule.node === undefined)).toBe(true);
    });

    it('replays its traces with the same verdicts, feedback and roadmap', () => {
      let events = 0;
      for (const trace of traces) {
        const fromSource = replay(createSession(spec, { now }), trace);
        const fromCompiled = replay(createSession(compiled, { now }), trace);
        expect(fromCompiled).toEqual(fromSource);
        events += fromSource.length;
      }
      expect(events).toBeGreaterThan(0);
    });
  });
});

describe("the web demo's compiled spec (examples/web/spec.compiled.json)", () => {
  it('is what `intentguard compile spec.intent --states states.json` writes', () => {
    const schema = unwrap(
      loadStateSchema(readProject('examples/web/states.json'), { id: 'states' }),
    );
    const spec = specOf(readProject('examples/web/spec.intent'), schema);
    // When this fails: npx tsx src/cli/main.ts compile examples/web/spec.intent --states examples/web/states.json -o examples/web/spec.compiled.json
    expect(readProject('examples/web/spec.compiled.json')).toBe(
      `${JSON.stringify(writeCompiledSpec(spec))}\n`,
    );
  });
});

describe('a spec with regexes, decimals, bindings and filters', () => {
  const schema = unwrap(
    loadToolSchema(
      JSON.stringify([
        {
          name: 'send_email',
          description: 'Sends an email.',
          parameters: {
            type: 'object',
            properties: {
              to: { type: 'string' },
              subject: { type: 'string' },
              amount: { type: 'number' },
            },
            required: ['to'],
          },
        },
      ]),
    ),
  );
  const text = `R1: send_email(to matches /@example\\.com$/, amount <= 0.1000000000000000055511151231257827) -> Sent
R2: Sent -> Done
reject send_email(subject contains "password") because "never send a password"
`;

  it('round-trips and decides alike', () => {
    const spec = specOf(text, schema);
    const compiled = shipped(spec);
    expect(comparable(compiled)).toEqual(comparable(spec));
    for (const proposal of [
      { action: 'send_email', args: { to: 'a@example.com', amount: 0.1 } },
      { action: 'send_email', args: { to: 'a@evil.com', amount: 0.1 } },
      { action: 'send_email', args: { to: 'a@example.com', subject: 'my PASSWORD' } },
    ]) {
      const a = createSession(spec, { now: fixedNow }).propose(proposal);
      const b = createSession(compiled, { now: fixedNow }).propose(proposal);
      expect(b).toEqual(a);
    }
  });

  it('is refused without a regex engine: a regex constraint is never taken as true', () => {
    const document = JSON.parse(JSON.stringify(writeCompiledSpec(specOf(text, schema))));
    expect(() => readCompiledSpec(document)).toThrow(
      /\$\.rules\[0\]\.action\.constraints\[0\]\.value\.regex: .*no regex engine/,
    );
  });
});

describe('a spec with conditions on bindings (v3)', () => {
  const schema = unwrap(
    loadToolSchema(
      JSON.stringify([
        {
          name: 'pay',
          description: 'Pays an amount due on a date.',
          parameters: {
            type: 'object',
            properties: {
              amount: { type: 'number' },
              fee: { type: 'number' },
              due: { type: 'string', format: 'date' },
            },
            required: ['amount', 'fee'],
          },
        },
      ]),
    ),
  );
  const text = `R1: pay(amount = $a, fee = $f, due = $d) & $a - $f <= max(100, 2 * $f) & $d <= today + 2d -> Paid
R2: Paid -> Done
reject pay(amount = $a, fee = $f) & $f > min($a / 10, 50) because "fee too high"
`;

  it('round-trips and decides alike', () => {
    const spec = specOf(text, schema);
    expect(spec.rules[0]?.comparisons?.length).toBe(2);
    expect(spec.guards[0]?.comparisons?.length).toBe(1);
    const compiled = shipped(spec);
    expect(comparable(compiled)).toEqual(comparable(spec));
    for (const args of [
      { amount: 110, fee: 10, due: '2025-03-15' },
      { amount: 150, fee: 10, due: '2025-03-15' },
      { amount: 110, fee: 20, due: '2025-03-15' },
      { amount: 110, fee: 10, due: '2025-04-30' },
    ]) {
      const proposal = { action: 'pay', args };
      const a = createSession(spec, { now: fixedNow }).propose(proposal);
      const b = createSession(compiled, { now: fixedNow }).propose(proposal);
      expect(b).toEqual(a);
    }
  });

  it('refuses a document whose comparison is tampered with', () => {
    const document = () => JSON.parse(JSON.stringify(writeCompiledSpec(specOf(text, schema))));
    const unbound = document();
    unbound.rules[0].comparisons[0].left.left.name = 'nobody';
    expect(() => readCompiledSpec(unbound, { regex: compileRegex, pathCheck })).toThrow(
      /\$\.rules\[0\]\.comparisons\[0\]\.left\.left\.name: \$nobody is used before anything binds it/,
    );
    const mixed = document();
    // A number compared with a date: the checker refuses it, so must the reader.
    mixed.rules[0].comparisons[1].right = { kind: 'number', value: 3 };
    expect(() => readCompiledSpec(mixed, { regex: compileRegex, pathCheck })).toThrow(
      /\$\.rules\[0\]\.comparisons\[1\]: compares date with number/,
    );
    const withoutCheck = document();
    expect(() => readCompiledSpec(withoutCheck, { regex: compileRegex })).toThrow(/parts\.paths/);
  });
});

describe('hostile compiled specs are refused with where and why', () => {
  const schema = unwrap(loadStateSchema(readProject('examples/web/states.json')));
  const good = writeCompiledSpec(specOf(readProject('examples/web/spec.intent'), schema));
  const fresh = (): Record<string, unknown> => JSON.parse(JSON.stringify(good));

  function refusal(document: unknown): CompiledSpecError {
    try {
      readCompiledSpec(document, { regex: compileRegex, pathCheck });
    } catch (error) {
      expect(CompiledSpecError.isInstance(error)).toBe(true);
      expect((error as CompiledSpecError).code).toBe('invalid-compiled-spec');
      return error as CompiledSpecError;
    }
    throw new Error('the document was accepted');
  }

  it('accepts the good one', () => {
    expect(readCompiledSpec(fresh()).rules.length).toBe(3);
  });

  it.each([
    ['not an object', () => 'spec', '$'],
    ['another format', () => ({ ...fresh(), format: 'something-else' }), '$.format'],
    ['another version', () => ({ ...fresh(), version: 3 }), '$.version'],
    ['a missing version', () => ({ ...fresh(), version: undefined }), '$.version'],
    ['an unknown top-level field', () => ({ ...fresh(), extra: 1 }), '$'],
  ])('%s', (_name, document, path) => {
    expect(refusal(document()).path).toBe(path);
  });

  it('an unknown node kind', () => {
    const document = fresh() as {
      rules: { states: { constraints: { value: { kind: string } }[] }[] }[];
    };
    const constraint = document.rules[0]!.states[0]!.constraints[0]!;
    constraint.value.kind = 'script';
    const error = refusal(document);
    expect(error.path).toBe('$.rules[0].states[0].constraints[0].value.kind');
    expect(error.message).toMatch(/expected one of text, number/);
  });

  it('an unknown operator', () => {
    const document = fresh() as { rules: { states: { constraints: { operator: string }[] }[] }[] };
    document.rules[0]!.states[0]!.constraints[0]!.operator = '=~';
    expect(refusal(document).path).toBe('$.rules[0].states[0].constraints[0].operator');
  });

  it('a reference to a predicate or variable that does not exist', () => {
    const document = fresh() as {
      rules: { states: { predicate: unknown; constraints: { variable: unknown }[] }[] }[];
    };
    document.rules[0]!.states[0]!.predicate = 'Nothing';
    expect(refusal(document).path).toBe('$.rules[0].states[0].predicate');
    const again = fresh() as typeof document;
    again.rules[0]!.states[0]!.constraints[0]!.variable = ['RestaurantInfo', 7];
    expect(refusal(again).path).toBe('$.rules[0].states[0].constraints[0].variable');
    const negative = fresh() as typeof document;
    negative.rules[0]!.states[0]!.constraints[0]!.variable = ['RestaurantInfo', -1];
    expect(refusal(negative).path).toBe('$.rules[0].states[0].constraints[0].variable');
  });

  it('ranges outside the source, and rule indexes out of order', () => {
    const document = fresh() as {
      rules: { range?: unknown; index: number; states: { range: unknown }[] }[];
    };
    document.rules[0]!.states[0]!.range = [0, 1_000_000];
    expect(refusal(document).path).toBe('$.rules[0].states[0].range');
    const swapped = fresh() as typeof document;
    swapped.rules[1]!.index = 0;
    expect(refusal(swapped).path).toBe('$.rules[1].index');
  });

  it('prototype-pollution keys are unknown fields, and nothing is polluted', () => {
    const text = JSON.stringify(good).replace(
      '"isDone":false',
      '"isDone":false,"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}',
    );
    const error = refusal(JSON.parse(text));
    expect(error.message).toMatch(/unknown field "__proto__"/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // An inherited property is never read as a field.
    const inherited = Object.create({ kind: 'rule' }) as Record<string, unknown>;
    expect(refusal({ ...fresh(), schema: inherited }).path).toBe('$.schema');
  });

  it('values of the wrong type, and a spec claiming Done without the head', () => {
    const document = fresh() as { rules: { isDone: unknown; head: string }[] };
    document.rules[0]!.isDone = 'yes';
    expect(refusal(document).path).toBe('$.rules[0].isDone');
    const claimed = fresh() as typeof document;
    claimed.rules[0]!.isDone = true;
    expect(refusal(claimed).path).toBe('$.rules[0].isDone');
  });

  it('huge sizes and deep nesting', () => {
    const long = fresh() as { rules: unknown[] };
    long.rules = new Array(100_001).fill(long.rules[0]);
    expect(refusal(long).message).toMatch(/more than 100000 elements/);
    let deep: unknown = { kind: 'number', value: 1 };
    for (let level = 0; level < 300; level++) deep = { kind: 'list', elements: [deep] };
    const nested = fresh() as {
      rules: { states: { constraints: { value: unknown }[] }[] }[];
    };
    nested.rules[0]!.states[0]!.constraints[0]!.value = deep;
    expect(refusal(nested).message).toMatch(/nested deeper than/);
  });

  it('a number that is not one', () => {
    const document = fresh() as { rules: { states: { constraints: { value: unknown }[] }[] }[] };
    document.rules[0]!.states[1]!.constraints[2]!.value = {
      kind: 'number',
      value: { $decimal: '1e999999' },
    };
    expect(refusal(document).path).toBe('$.rules[0].states[1].constraints[2].value.value');
    document.rules[0]!.states[1]!.constraints[2]!.value = {
      kind: 'number',
      value: { $decimal: '2' },
    };
    expect(refusal(document).path).toBe('$.rules[0].states[1].constraints[2].value.value');
  });

  it('a document the writer cannot write faithfully is not written', () => {
    const spec = specOf(readProject('examples/web/spec.intent'), schema);
    const rule = spec.rules[0]!;
    const unknown = {
      ...spec,
      rules: [{ ...rule, futureField: 1 }, ...spec.rules.slice(1)],
    } as Spec;
    expect(() => writeCompiledSpec(unknown)).toThrow(
      /\$\.rules\[0\]\.futureField: the compiled format does not know this field/,
    );
  });

  it('the good document is what a writer produces (a pinned shape)', () => {
    const document: CompiledSpecDocument = good;
    expect(Object.keys(document)).toEqual([
      'format',
      'version',
      'source',
      'schema',
      'rules',
      'guards',
    ]);
    expect(document.format).toBe('intentguard/compiled-spec');
    expect(document.version).toBe(2);
  });

  it('a guard index beyond the items of the spec', () => {
    const document = fresh() as { guards: { index: number }[] };
    expect(document.guards.length).toBeGreaterThan(0);
    document.guards[0]!.index = 1000;
    expect(refusal(document).path).toBe('$.guards[0].index');
  });

  it('a document of version 1 (with the syntax tree) is refused, saying to compile again', () => {
    const error = refusal({ ...fresh(), version: 1, ast: { kind: 'spec', items: [] } });
    expect(error.path).toBe('$.version');
    expect(error.message).toMatch(/found number 1 \(compile the spec again/);
  });

  it('syntax nodes are not part of the format: a document carrying one is refused', () => {
    const document = fresh() as {
      rules: { node?: unknown; states: { constraints: { node?: unknown }[] }[] }[];
    };
    document.rules[0]!.node = { kind: 'rule' };
    expect(refusal(document).message).toMatch(/\$\.rules\[0\]: unknown field "node"/);
    const constraint = fresh() as typeof document;
    constraint.rules[0]!.states[0]!.constraints[0]!.node = {};
    expect(refusal(constraint).path).toBe('$.rules[0].states[0].constraints[0]');
  });
});
