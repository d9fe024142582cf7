import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { taubenchSchema } from '../../src/eval/taubench-schema.js';
import { createGuard, loadCompiledGuard, loadComposedGuard } from '../../src/guard/index.js';
import { compiledPathChecks as pathCheck } from '../../src/language/check-compiled-paths.js';
import { CompiledSpecError } from '../../src/language/compiled-spec-format.js';
import { checkPolicy, checkSpec, unwrap } from '../../src/language/index.js';
import { readCompiledComposition } from '../../src/language/read-compiled-composition.js';
import { readCompiledSpec } from '../../src/language/read-compiled-spec.js';
import { compileRegex as regex } from '../../src/language/regex.js';
import { writeCompiledSpec } from '../../src/language/write-compiled-spec.js';

/**
 * A composition compiled as one document (`intentguard compile --policy`, FORMATS.md):
 * the policy part is read and checked exactly as a spec is, and every reader enforces it
 * with the spec or refuses the document — never runs the spec without it.
 */
const example = (file: string) =>
  readFileSync(new URL(`../../examples/policy/${file}`, import.meta.url), 'utf8');
const schema = taubenchSchema(
  { text: example('tools.json'), name: 'tools.json' },
  { text: example('states.json'), name: 'states.json' },
);
const intentText = example('cancel.intent');
const policyText = example('airline.policy');
const intent = unwrap(checkSpec(intentText, schema));
const policy = unwrap(checkPolicy(policyText, schema));

// biome-ignore lint/suspicious/noExplicitAny: documents are edited as an attacker would
type Editable = any;
const composed = (): Editable => JSON.parse(JSON.stringify(writeCompiledSpec(intent, policy)));
const read = (document: unknown) => readCompiledComposition(document, { regex, pathCheck, schema });
const certificate = { id: 'c1', name: 'send_certificate', args: { user_id: 'mia', amount: 900 } };

function refusedAt(run: () => unknown, path: string): void {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(CompiledSpecError);
  expect((caught as CompiledSpecError).path).toBe(path);
}

describe('a compiled composition', () => {
  it('carries the policy, the givens and `refused`, and reads back to the checked pair', () => {
    const document = composed();
    expect(document.policy.source).toBe(policyText);
    expect(document.givens).toHaveLength(1);
    expect(JSON.stringify(document.rules)).toContain('"refused cancel_reservation"');
    const back = read(document);
    expect(back.policy?.role).toBe('policy');
    expect(back.policy?.schema).toBe(back.intent.schema);
    expect(back.intent.givens?.[0]?.predicate.name).toBe('TripPurpose');
    expect(back.policy?.guards[0]?.reason).toBe('no agent sends more than 500');
    expect(back.policy?.objectives.has('InsuredCancellation')).toBe(true);
    expect(back.intent.objectives.has('InsuredCancellation')).toBe(false);
  });

  it('is refused by the readers of a spec alone, which would run it without its policy', async () => {
    refusedAt(() => readCompiledSpec(composed(), { regex, pathCheck }), '$');
    expect(() => readCompiledSpec(composed(), { regex, pathCheck })).toThrow(/unknown field/);
    await expect(loadCompiledGuard(composed(), {}, schema)).rejects.toThrow(/unknown field/);
  });

  it('loadComposedGuard refuses a document stripped of its policy part', async () => {
    const stripped = composed();
    delete stripped.policy;
    await expect(loadComposedGuard(stripped, {}, schema)).rejects.toThrow(
      'compiled spec: $: missing field "policy"',
    );
    // The Node reader, which cannot know what the host expects, reads it as the spec alone.
    expect(read(stripped).policy).toBeUndefined();
    expect(() =>
      readCompiledComposition(stripped, { regex, pathCheck, requirePolicy: true }),
    ).toThrow(CompiledSpecError);
  });

  it("createGuard and loadComposedGuard enforce the policy: the policy's guard refuses", async () => {
    for (const guard of [
      createGuard(composed()),
      await loadComposedGuard(composed(), { finishWaitsForResults: false }, schema),
      await loadComposedGuard(composed(), { finishWaitsForResults: false }),
    ]) {
      const decision = guard.check(certificate);
      expect(decision.action).not.toBe('run');
      expect(decision.verdict.decision).toBe('reject');
      expect(decision.verdict.reasons[0]).toMatchObject({ code: 'guard-reject', source: 'policy' });
    }
    // The intent alone lets nothing of the kind through either, but not by the policy's guard.
    const alone = createGuard(JSON.parse(JSON.stringify(writeCompiledSpec(intent))));
    expect(alone.check(certificate).verdict.reasons.map((reason) => reason.source)).not.toContain(
      'policy',
    );
  });

  it('a second policy given with a composition is an error, not a silent choice', async () => {
    expect(() => createGuard(composed(), undefined, { policy })).toThrow(/composes its own policy/);
    await expect(loadComposedGuard(composed(), { policy })).rejects.toThrow(
      /composes its own policy/,
    );
  });

  it('a tampered or truncated policy part is refused at its JSONPath', () => {
    const edits: [string, (document: Editable) => void][] = [
      ['$.policy.rules', (document) => delete document.policy.rules],
      ['$.policy', (document) => (document.policy.extra = 1)],
      ['$.policy', (document) => (document.policy = 'reject nothing')],
      ['$.policy.source', (document) => (document.policy.source = 42)],
      [
        '$.policy.guards[0].pattern.constraints[0].value',
        (document) =>
          (document.policy.guards[0].pattern.constraints[0].value = { kind: 'text', value: '500' }),
      ],
      ['$.policy.rules[0].index', (document) => document.policy.rules.splice(0, 1)],
      [
        '$.policy.rules[0].head',
        (document) => (document.policy.rules[0].head = document.rules[0].head),
      ],
      [
        '$.policy.guards[0].pattern.range',
        (document) => (document.policy.guards[0].pattern.range = [0, 1_000_000]),
      ],
    ];
    for (const [path, edit] of edits) {
      const document = composed();
      edit(document);
      refusedAt(() => read(document), path);
      refusedAt(() => createGuard(document), path);
    }
  });

  it('a policy part with Done or `refused` is not a policy', () => {
    const withDone = composed();
    withDone.policy.rules.push({ ...withDone.rules.at(-1), index: withDone.policy.rules.length });
    expect(() => read(withDone)).toThrow(CompiledSpecError);
    const withRefused = composed();
    const refusedRule = withRefused.rules.find((rule: Editable) =>
      JSON.stringify(rule).includes('refused '),
    );
    withRefused.policy.rules.push({
      ...refusedRule,
      id: 'Sneaky',
      head: 'Sneaky',
      isDone: false,
      objectives: [],
      index: withRefused.policy.rules.length,
    });
    // `refused A` is the intent's: in the policy part it names no predicate.
    refusedAt(() => read(withRefused), '$.policy.rules[3].states[0].predicate');
  });

  it('an edit that still type-checks is caught where the sources are checked again', () => {
    const document = composed();
    // 500 → 5000: a valid number, so only the policy's source shows the edit.
    document.policy.guards[0].pattern.constraints[0].value.value = 5000;
    expect(() => read(document)).not.toThrow();
    refusedAt(() => createGuard(document), '$.policy.guards[0].pattern.constraints[0].value.value');
  });

  it('a given fact is checked as the checker checks it', () => {
    const notUser = composed();
    notUser.givens[0].predicate = 'SessionUser';
    refusedAt(() => read(notUser), '$.givens[0].predicate');
    const wrongType = composed();
    wrongType.givens[0].constraints[0].value = { kind: 'number', value: 3 };
    refusedAt(() => read(wrongType), '$.givens[0].constraints[0].value');
    const condition = composed();
    condition.givens[0].constraints[0].operator = '!=';
    refusedAt(() => read(condition), '$.givens[0].constraints[0]');
  });
});
