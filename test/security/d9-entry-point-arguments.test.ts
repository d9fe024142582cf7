import { describe, expect, it } from 'vitest';
import { allEngineParts } from '../../src/engine/all-parts.js';
// An engine internal, no longer on the root; it still answers misuse with a TypeError.
import { compileSpec } from '../../src/engine/compiled-spec.js';
import {
  analyzeSpec,
  checkSpec,
  explainSpec,
  lexicalSimilarity,
  loadStateSchema,
  loadToolSchema,
  type Schema,
} from '../../src/index.js';
import {
  check,
  checkWithDiagnostics,
  parse,
  parseWithDiagnostics,
} from '../../src/language/index.js';
import { bankSchema, specFor } from './support.js';

/**
 * D9 (language entry points): misuse threw raw TypeErrors from deep inside
 * (`reading 'length'`, `text.matchAll is not a function`, `reading 'predicates'`).
 * Entry points that answer with diagnostics now answer with `invalid-argument`, naming
 * the parameter; the others throw a TypeError that names the function and parameter.
 */
const bankText = 'BankCheckBalance() -> Known\nKnown -> Done';
const anything = (value: unknown) => value as never;

function misuse(result: {
  ok: boolean;
  diagnostics: readonly { code: string; message: string }[];
}) {
  expect(result.ok).toBe(false);
  expect(result.diagnostics.map((diagnostic) => diagnostic.code)).toEqual(['invalid-argument']);
  return result.diagnostics[0]?.message ?? '';
}

describe('D9: entry points answer misuse with the documented errors', () => {
  it('checkSpec with no text or a number as text', () => {
    expect(misuse(checkSpec(anything(undefined), bankSchema()))).toBe(
      "checkSpec: 'source' must be the spec text (a string), not undefined.",
    );
    expect(misuse(checkSpec(anything(42), bankSchema()))).toBe(
      "checkSpec: 'source' must be the spec text (a string), not 42.",
    );
  });

  it('checkSpec without a schema, whatever the spec mentions', () => {
    for (const text of ['X(a = 1) -> P\nP -> Done', 'true -> Done']) {
      expect(misuse(checkSpec(text, anything(undefined)))).toBe(
        "checkSpec: 'schema' must be a Schema (from loadStateSchema, loadToolSchema or createSchema), not undefined.",
      );
    }
    expect(misuse(checkSpec(bankText, anything({})))).toContain("'schema' must be a Schema");
    // A schema result passed instead of its value.
    const loaded = loadToolSchema('[]');
    expect(misuse(checkSpec(bankText, anything(loaded)))).toContain('a result object');
  });

  it('checkSpec with bad options: a misspelt or NaN limit would switch a check off', () => {
    expect(
      misuse(checkSpec(bankText, bankSchema(), anything({ limits: { maxInputLenght: 5 } }))),
    ).toBe(
      "checkSpec: 'options.limits' must be an object of known limits (the names of defaultLimits), not one with the unknown limit 'maxInputLenght' (did you mean 'maxInputLength'?).",
    );
    expect(
      misuse(checkSpec(bankText, bankSchema(), { limits: { maxInputLength: Number.NaN } })),
    ).toBe(
      "checkSpec: 'options.limits.maxInputLength' must be a whole number of zero or more, not NaN.",
    );
    expect(misuse(checkSpec(bankText, bankSchema(), anything(null)))).toContain("'options'");
    expect(misuse(checkSpec(bankText, bankSchema(), anything({ extract: 'no' })))).toContain(
      "'options.extract' must be true, false or undefined",
    );
    // Valid options still work.
    expect(checkSpec(bankText, bankSchema(), { limits: { maxItems: 10 }, extract: false }).ok).toBe(
      true,
    );
  });

  it('parse, parseWithDiagnostics, check, checkWithDiagnostics and analyzeSpec', () => {
    expect(misuse(parse(anything(undefined)))).toContain("parse: 'source' must be the spec text");
    const parsed = parseWithDiagnostics(anything(42));
    expect(parsed.value.ast.items).toEqual([]);
    expect(parsed.diagnostics.map((diagnostic) => diagnostic.code)).toEqual(['invalid-argument']);
    expect(misuse(check(anything(undefined), bankSchema()))).toBe(
      "check: 'parsed' must be a ParsedSpec (the value of parse), not undefined.",
    );
    const good = parse(bankText);
    if (!good.ok) throw new Error('does not parse');
    expect(misuse(check(good.value, anything(null)))).toContain("check: 'schema'");
    const checked = checkWithDiagnostics(good.value, anything(undefined));
    expect(checked.spec.rules).toEqual([]);
    expect(checked.diagnostics.map((diagnostic) => diagnostic.code)).toEqual(['invalid-argument']);
    expect(analyzeSpec(anything(undefined), undefined).map((item) => item.code)).toEqual([
      'invalid-argument',
    ]);
  });

  it('explainSpec and compileSpec throw a TypeError naming the parameter', () => {
    expect(() => explainSpec(anything(undefined))).toThrow(
      new TypeError(
        "explainSpec: 'spec' must be a checked Spec (the value of a successful checkSpec), not undefined",
      ),
    );
    const result = checkSpec(bankText, bankSchema());
    expect(() => explainSpec(anything(result))).toThrow(/not a result object/);
    expect(() => explainSpec(specFor(bankText, bankSchema()), anything(7))).toThrow(
      "explainSpec: 'options' must be an options object or undefined, not 7",
    );
    expect(() =>
      compileSpec(anything(null), {
        similarity: lexicalSimilarity,
        threshold: 0.8,
        parts: allEngineParts,
      }),
    ).toThrow(TypeError);
    expect(explainSpec(specFor(bankText, bankSchema())).text).toContain('Steps:');
  });

  it('the schema loaders answer a non-text, non-JSON argument with a schema diagnostic', () => {
    for (const value of [undefined, 42, null]) {
      const states = loadStateSchema(anything(value));
      expect(states.ok).toBe(false);
      expect(states.diagnostics[0]?.severity).toBe('error');
      const tools = loadToolSchema(anything(value));
      expect(tools.ok).toBe(false);
      expect(tools.diagnostics[0]?.code).toMatch(/^schema-/);
    }
  });

  it('never throws from a diagnostics entry point, whatever it is given', () => {
    const values: unknown[] = [undefined, null, 0, '', [], {}, () => 1, Symbol('x'), 10n];
    for (const first of values) {
      for (const second of values) {
        expect(() => checkSpec(anything(first), anything(second))).not.toThrow();
        expect(() => analyzeSpec(anything(first), anything(second))).not.toThrow();
        expect(() => parse(anything(first), anything(second))).not.toThrow();
        expect(() => check(anything(first), anything(second as Schema))).not.toThrow();
      }
    }
  });
});
