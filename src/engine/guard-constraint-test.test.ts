import { describe, expect, it } from 'vitest';
import { action, schemaOf, specOf, state } from '../../test/engine/fixtures.js';
import type { CheckedConstraint } from '../language/index.js';
import { allEngineParts } from './all-parts.js';
import { createClock } from './clock.js';
import { compileConstraintTest } from './constraint-test.js';
import { compileGuardTest } from './guard-constraint-test.js';
import { lexicalSimilarity } from './lexical-similarity.js';
import { defaultSimilarityThreshold } from './similarity.js';
import { parseValue } from './values.js';

const clock = createClock('2025-03-14T12:00');
const schema = schemaOf(
  action('Send', { to: 'text', body: 'text', cc: 'list<text>', n: 'number' }),
  state('Done0', {}),
);
const settings = {
  similarity: lexicalSimilarity,
  threshold: defaultSimilarityThreshold,
  parts: allEngineParts,
};

function constraintOf(text: string): CheckedConstraint {
  const spec = specOf(`true -> Done\nreject Send(${text})`, schema);
  const constraint = spec.guards[0]?.pattern.constraints[0];
  if (!constraint) throw new Error(`no constraint in ${text}`);
  return constraint;
}

/** [as a guard sees it, as a rule sees it]. */
function judged(text: string, input: unknown): [guard: boolean, rule: boolean] {
  const constraint = constraintOf(text);
  const value = parseValue(input, constraint.variable.type, clock);
  if (!value.ok) throw new Error(value.problem);
  return [
    compileGuardTest(constraint, settings)(value.value, clock),
    compileConstraintTest(constraint, settings)(value.value, clock),
  ];
}

type Row = readonly [constraint: string, value: unknown];

/** The guard fires where the rule's strict reading does not. */
function broader(rows: readonly Row[]) {
  it.each(rows)('%s holds in a guard for %j, not in a rule', (constraint, value) => {
    expect(judged(constraint, value)).toEqual([true, false]);
  });
}

/** Guard and rule agree. */
function same(rows: readonly (readonly [string, unknown, boolean])[]) {
  it.each(rows)('%s with %j is %s in guards and rules alike', (constraint, value, expected) => {
    expect(judged(constraint, value)).toEqual([expected, expected]);
  });
}

describe('look-alikes (confusable skeletons) for =, in, contains', () => {
  broader([
    ['to = "Mallory"', 'Маllory'],
    ['to = "Mallory"', 'Mallоry'],
    ['to = "Mallory"', 'Mall0ry'],
    ['to = "Mallory"', 'Mallóry'],
    ['to = "Mallory"', 'Mallory\u0301'],
    ['to in ["Mallory", "Eve"]', 'Еve'],
    ['body contains "password"', 'my pаssword is'],
    ['to contains "@evil.com"', 'x@evil。com'],
    ['to contains "@evil.com"', 'x@EVIL。com'],
  ]);
  same([
    ['to = "Mallory"', 'Malory', false],
    ['to = "Mallory"', 'Eve', false],
    ['to in ["Mallory", "Eve"]', 'Alice', false],
    ['body contains "password"', 'my passport', false],
  ]);
});

describe('parts of a value a tool might read separately', () => {
  broader([
    ['to matches /@external\\.com$/', 'Bob <bob@external.com>'],
    ['to matches /@external\\.com$/', 'bob@external.com, alice@company.com'],
    ['to matches /@external\\.com$/', 'bob@external.com;alice@company.com'],
    ['to matches /@external\\.com$/', 'bob@external.com.'],
    ['to = "Mallory"', 'Mallory.'],
    ['to = "Mallory"', 'Mallory, Alice'],
    ['to = "Mallory"', 'Alice <Mallory>'],
    ['to in ["Mallory", "Eve"]', 'Alice; Eve'],
    ['to = "Bob Smith"', 'Bob Smith, Alice'],
    ['to ~ "Mallory"', 'Alice, Mallory'],
    ['to = "+14155550123"', '+1 (415) 555-0123'],
    ['to = "+14155550123"', 'tel:+14155550123'],
    ['to in ["+14155550123"]', 'Alice, +1-415-555-0123'],
  ]);
  same([
    ['to matches /@external\\.com$/', 'bob@external.com', true],
    ['to matches /@external\\.com$/', 'bob@external.company', false],
    ['to = "Bob Smith"', 'Bob Smith', true],
    // Words are not parts.
    ['to = "Mallory"', 'Mallory Smith', false],
    ['to ~ "Mallory"', 'Alice Mallory', false],
    ['to = "+14155550123"', '+14155550124', false],
  ]);
});

describe('negated constraints: the whole fails, or its parts mix', () => {
  broader([
    ['to not matches /@company\\.com$/', 'evil@x.com, bob@company.com'],
    ['to not matches /^bc1q/', 'bc1qxyz; 3mallory'],
    ['body not matches /^ls\\b/', 'ls; rm -rf /'],
  ]);
  same([
    ['to != "Alice"', 'Alice, Mallory', true],
    ['to != "Alice"', 'Alice <mallory@x.com>', true],
    ['to not in ["Alice", "Bob"]', 'Alice Mallory Bob', true],
    ['to != "Alice"', 'Alice', false],
    ['to != "Alice"', ' ALICE\u200b ', false],
    ['to != "Alice"', 'Mallory', true],
    ['to != "Alice"', '\u0410lice', true],
    ['to != "Alice Smith"', 'Alice Smith', false],
    ['to not matches /@company\\.com$/', 'bob@company.com', false],
    ['to not matches /^alice smith$/', 'Alice Smith', false],
    ['body not contains "unsubscribe"', 'please unsubscribe me', false],
    ['body not contains "unsubscribe"', 'hello', true],
    ['to !~ "Alice"', 'Alice', false],
    ['to !~ "Alice"', 'Mallory alice', true],
    // Words are not parts: a space-separated list is one value.
    ['to not matches /@company\\.com$/', 'evil@x.com bob@company.com', false],
  ]);
});

describe('O1: an unanchored regex searches the whole text; its negation is a real one', () => {
  same([
    ['body not matches /sony/', 'Sony Bravia 55-inch TV', false],
    ['body matches /sony/', 'Sony Bravia 55-inch TV', true],
    ['body not matches /freq=weekly/', 'RRULE:FREQ=WEEKLY;COUNT=4', false],
    ['body not matches /freq=weekly/', 'RRULE:FREQ=DAILY;COUNT=4', true],
    ['body not matches /\\brm\\b/', 'ls; rm -rf /', false],
  ]);
});

describe('lists of text: element by element', () => {
  broader([
    ['cc contains "evil@x.com"', ['boss@corp.com, evil@x.com']],
    ['cc contains "evil@x.com"', ['еvil@x.com']],
    ['cc matches /@x\\.com$/', ['Evil <evil@x.com>']],
    ['cc = ["Mallory"]', ['Маllory']],
  ]);
  same([
    ['cc contains "evil@x.com"', ['EVIL@x.com '], true],
    ['cc contains "evil@x.com"', ['boss@corp.com'], false],
    ['cc not contains "evil@x.com"', ['boss@corp.com'], true],
    ['cc in ["a@corp.com", "b@corp.com"]', ['a@corp.com'], true],
  ]);
});

describe('other types', () => {
  same([
    ['n > 500', 501, true],
    ['n != 500', 500, false],
  ]);
});
