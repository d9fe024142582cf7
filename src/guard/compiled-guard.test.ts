import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadEngineParts } from '../engine/load-parts.js';
import { CompiledSpecError } from '../language/compiled-spec-format.js';
import { checkPolicy, checkSpec, unwrap } from '../language/index.js';
import { readCompiledSpec } from '../language/read-compiled-spec.js';
import { writeCompiledSpec } from '../language/write-compiled-spec.js';
import { schemaFromMcpTools } from '../schema/from-mcp.js';
import { loadToolSchema } from '../schema/index.js';
import { compiledSpecHasRegex, guardsCompareText, loadCompiledGuard } from './compiled-guard.js';
import { createGuard } from './create-guard.js';
import { IntentGuard } from './intent-guard.js';
import { loadToolResultReader } from './tool-result-reader.js';
import type { Guard } from './types.js';

const schema = unwrap(
  loadToolSchema(
    readFileSync(new URL('../../examples/bank-transfer/tools.json', import.meta.url), 'utf8'),
  ),
);
const specText = readFileSync(
  new URL('../../examples/bank-transfer/spec.intent', import.meta.url),
  'utf8',
);
const compiled = JSON.parse(JSON.stringify(writeCompiledSpec(unwrap(checkSpec(specText, schema)))));
const options = { now: '2025-03-14T12:00' };

/** A run through a guard: every decision and the journal, as data. */
function run(guard: Guard): unknown {
  const decisions = [
    guard.check({ id: 'c1', name: 'BankTransfer', args: { to: 'Mallory', amount: 5000 } }),
    guard.check({ id: 'c2', name: 'BankCheckBalance', args: {} }),
    guard.finish('Done: sent the money.'),
  ];
  return { decisions, status: guard.status(), events: guard.journal().events };
}

describe('guards from compiled specs', () => {
  it('createGuard takes a compiled spec and decides as from the text', () => {
    expect(run(createGuard(compiled, undefined, options))).toEqual(
      run(createGuard(specText, schema, options)),
    );
  });

  it('loadCompiledGuard (the browser path) decides as from the text', async () => {
    const guard = await loadCompiledGuard(compiled, options);
    expect(run(guard)).toEqual(run(createGuard(specText, schema, options)));
  });

  it('refuses a malformed document with where and why, in both forms', async () => {
    const broken = { ...compiled, version: 99 };
    expect(() => createGuard(broken, undefined, options)).toThrow(CompiledSpecError);
    await expect(loadCompiledGuard(broken, options)).rejects.toThrow(/\$\.version: expected 2/);
    await expect(loadCompiledGuard(null, options)).rejects.toThrow(
      /compiled spec: \$: expected an object/,
    );
  });

  it('loads the regex engine only for a spec with a regex', async () => {
    expect(compiledSpecHasRegex(compiled)).toBe(false);
    const withRegex = writeCompiledSpec(
      unwrap(
        checkSpec(
          `${specText}\nreject BankTransfer(to matches /^mall/) because "not to Mallory"\n`,
          schema,
        ),
      ),
    );
    expect(compiledSpecHasRegex(withRegex)).toBe(true);
    const guard = await loadCompiledGuard(JSON.parse(JSON.stringify(withRegex)), options);
    const decision = guard.check({
      id: 'c1',
      name: 'BankTransfer',
      args: { to: 'MALLORY', amount: 1 },
    });
    expect(decision.action).toBe('refuse');
  });
});

describe('the confusables table, where the deny-list reading compares text', () => {
  const needs = (text: string) => guardsCompareText(unwrap(checkSpec(text, schema)));
  it('is needed by a text guard, a text constraint inside not, and @repeat(per:)', () => {
    expect(needs(specText)).toBe(false);
    expect(needs(`${specText}\nreject BankTransfer(to = "Mallory")`)).toBe(true);
    const sent = 'BankTransfer(to = "Alice") -> Sent';
    expect(needs(`${sent}\nSent & not BankCheckBalanceResult(balance > 5) -> Done`)).toBe(false);
    expect(needs(`${sent}\nSent & not Answer(text contains "refund") -> Done`)).toBe(true);
    expect(needs(`@repeat(per: to)\n${sent}\nSent -> Done`)).toBe(true);
  });
});

describe('parts a page loads on demand', () => {
  // A schema with a record argument, and a spec that never names a path: reading the
  // argument still needs the record reader, which a page loads with the path evaluators.
  const recordSchema = unwrap(
    schemaFromMcpTools({
      tools: [
        {
          name: 'book_trip',
          description: 'Books a trip.',
          inputSchema: {
            type: 'object',
            properties: {
              city: { type: 'string' },
              traveller: {
                type: 'object',
                properties: { name: { type: 'string' }, born: { type: 'string', format: 'date' } },
                required: ['name'],
              },
            },
          },
        },
      ],
    }),
  );
  const recordDocument = JSON.parse(
    JSON.stringify(
      writeCompiledSpec(
        unwrap(checkSpec('book_trip(city = "Oslo") -> Booked\nBooked -> Done', recordSchema)),
      ),
    ),
  );
  const misfit = { id: 'c1', name: 'book_trip', args: { city: 'Oslo', traveller: { born: 42 } } };

  // The modules as a page has them: a guard has only the parts it is given or loads, and
  // nothing another guard was given (no module holds a part).

  it('a guard started without parts refuses what needs one, even after a Node guard was given all', () => {
    createGuard(compiled, undefined, options);
    expect(() => new IntentGuard(readCompiledSpec(compiled), options)).toThrow(
      /not given \(parts\.toolResults\)/,
    );
  });

  it('loadCompiledGuard given parts loads nothing: a spec needing another part is refused', async () => {
    await expect(loadCompiledGuard(recordDocument, { ...options, parts: {} })).rejects.toThrow(
      /not given \(parts\.paths\)/,
    );
    const guard = await loadCompiledGuard(recordDocument, {
      ...options,
      parts: { ...(await loadEngineParts(['paths'])), toolResults: await loadToolResultReader() },
    });
    expect(guard.check(misfit).action).toBe('refuse');
  });

  it('loadCompiledGuard loads the record reader for a schema with records, and a misfit argument is refused', async () => {
    const guard = await loadCompiledGuard(recordDocument, options);
    const decision = guard.check(misfit);
    expect(decision.action).toBe('refuse');
    expect(decision.verdict.reasons.map((reason) => reason.code)).toEqual(['invalid-proposal']);
    expect(decision.verdict.reasons[0]?.message).toMatch(/traveller/);
    expect(
      guard.check({
        id: 'c2',
        name: 'book_trip',
        args: { city: 'Oslo', traveller: { name: 'Ann', born: '1990-01-02' } },
      }).action,
    ).toBe('run');
  });

  it('a guard over a schema with records is refused when the record reader is not loaded (never a misfit taken as fitting)', async () => {
    expect(() => new IntentGuard(readCompiledSpec(recordDocument), options)).toThrow(
      /not given \(parts\.paths\)/,
    );
  });

  // A path into the record: reading it checks the path's types with the part that evaluates it.
  const pathDocument = JSON.parse(
    JSON.stringify(
      writeCompiledSpec(
        unwrap(
          checkSpec(
            'book_trip(city = "Oslo") -> Booked\nBooked -> Done\nreject book_trip(traveller.name = "Mallory") because "not for Mallory"\n',
            recordSchema,
          ),
        ),
      ),
    ),
  );
  const pathConstraint = '$.guards[0].pattern.constraints[0]';
  // The path turned into one through the text name: it would compare nothing, and the guard never fire.
  const tamperedPath = structuredClone(pathDocument);
  tamperedPath.guards[0].pattern.constraints[0].access.steps.push({ kind: 'field', name: 'first' });
  const toMallory = {
    id: 'c1',
    name: 'book_trip',
    args: { city: 'Oslo', traveller: { name: 'Mallory' } },
  };

  it("loadCompiledGuard loads the check of paths and bindings before reading a spec with a path: a path's types are checked, and the guard decides", async () => {
    await expect(loadCompiledGuard(tamperedPath, options)).rejects.toMatchObject({
      name: 'CompiledSpecError',
      path: `${pathConstraint}.access.steps[1].name`,
    });
    const guard = await loadCompiledGuard(pathDocument, options);
    expect(guard.check(toMallory).verdict.reasons.map((reason) => reason.code)).toContain(
      'guard-reject',
    );
  });

  it('a spec with a path or a binding is refused when it is read without the check of paths (never read unchecked)', async () => {
    for (const document of [pathDocument, tamperedPath])
      expect(() => readCompiledSpec(document)).toThrow(
        /path or a binding, and their check is not given \(parts\.paths\)/,
      );
    // A spec without one reads without it.
    expect(readCompiledSpec(recordDocument).guards).toEqual([]);
  });

  it("loadCompiledGuard loads the reader of tools' outputs for a schema with tool results, and an output is read as the result", async () => {
    const guard = await loadCompiledGuard(compiled, options);
    expect(guard.check({ id: 'c1', name: 'BankCheckBalance', args: {} }).action).toBe('run');
    expect(guard.result('c1', { output: '{"balance": 900}' }).ok).toBe(true);
    // BankCheckBalanceResult(balance <= 1000) holds: the task is done.
    expect(guard.finish().action).toBe('run');
    expect(guard.journal().events.at(-2)).toEqual({
      observe: { updates: { BankCheckBalanceResult: { balance: 900 } } },
      id: 'c1',
    });
  });

  it("a guard over a schema with tool results is refused when the reader of tools' outputs is not loaded (never an output dropped)", async () => {
    expect(() => new IntentGuard(readCompiledSpec(compiled), options)).toThrow(
      /not given \(parts\.toolResults\)/,
    );
  });

  const similarDocument = JSON.parse(
    JSON.stringify(
      writeCompiledSpec(
        unwrap(
          checkSpec(
            `${specText}\nreject BankTransfer(to ~ "Mallory") because "not to Mallory"\n`,
            schema,
          ),
        ),
      ),
    ),
  );
  const toMalory = { id: 'c1', name: 'BankTransfer', args: { to: 'Malory', amount: 1 } };

  it('loadCompiledGuard loads the lexical similarity for a spec that compares by ~', async () => {
    const guard = await loadCompiledGuard(similarDocument, options);
    const decision = guard.check(toMalory);
    expect(decision.action).toBe('refuse');
    expect(decision.verdict.reasons.map((reason) => reason.code)).toContain('guard-reject');
  });

  it("a spec that compares by ~ is refused without the lexical similarity, and runs with the host's own measure", async () => {
    expect(() => new IntentGuard(readCompiledSpec(similarDocument), options)).toThrow(
      /nor the lexical similarity \(parts\.lexicalSimilarity\)/,
    );
    // A host measure needs nothing loaded: this one finds every name similar. (The
    // schema declares a tool's result: its reader is given, as loadCompiledGuard would.)
    const guard = new IntentGuard(readCompiledSpec(similarDocument), {
      ...options,
      parts: { toolResults: await loadToolResultReader() },
      similarity: () => 1,
    });
    expect(guard.check({ ...toMalory, args: { to: 'Alice', amount: 1 } }).action).toBe('refuse');
  });
});

describe('loadCompiledGuard with a policy (LANGUAGE.md §8)', () => {
  const policyText =
    'BankCheckBalanceResult(balance >= 2000) & BankTransfer(amount <= 500) -> Permitted\n';

  it('the composition is a part loaded on demand, on its own', async () => {
    const { policyComposition } = await import('../engine/policy-composition.js');
    expect(await loadEngineParts(['policy'])).toEqual({ policy: policyComposition });
    expect(await loadEngineParts(['paths'])).not.toHaveProperty('policy');
  });

  it('loads the composition for a policy, which must be over the schema the spec is read with', async () => {
    // A policy checked against another Schema object than the document's reads predicates
    // by other indexes: refused, never composed (the document's schema is its own).
    const policy = unwrap(checkPolicy(policyText, schema));
    await expect(loadCompiledGuard(compiled, { ...options, policy }, schema)).rejects.toThrow(
      /must be checked against the intent's schema/,
    );
  });

  it('given parts without the composition, a guard with a policy is refused (fail closed)', async () => {
    const policy = unwrap(checkPolicy(policyText, schema));
    await expect(
      loadCompiledGuard(compiled, { ...options, policy, parts: {} }, schema),
    ).rejects.toMatchObject({ code: 'missing-part' });
  });
});
