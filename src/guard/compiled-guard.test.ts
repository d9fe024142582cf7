import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CompiledSpecError } from '../language/compiled-spec-format.js';
import { checkSpec, unwrap } from '../language/index.js';
import { writeCompiledSpec } from '../language/write-compiled-spec.js';
import { loadToolSchema } from '../schema/index.js';
import { compiledSpecHasRegex, loadCompiledGuard } from './compiled-guard.js';
import { createGuard } from './guard.js';
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
    await expect(loadCompiledGuard(broken, options)).rejects.toThrow(/\$\.version: expected 1/);
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
