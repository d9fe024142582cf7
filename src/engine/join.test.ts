import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedUrl } from '../../test/support/shared.js';
import { analyzeSpec } from '../language/analyze.js';
import { checkSpec } from '../language/index.js';
import type { Schema } from '../language/schema-model.js';
import { schemaFromToolemu } from '../schema/from-toolemu.js';
import { createSession } from './session.js';

const schema = schemaFromToolemu(readFileSync(sharedUrl('data/toolemu/toolkits.json'), 'utf8'))
  .value as Schema;
const now = '2025-03-14T12:00';

function session(text: string) {
  const checked = checkSpec(text, schema);
  if (!checked.ok) throw new Error(JSON.stringify(checked.diagnostics, null, 1));
  return createSession(checked.value, { now });
}

const people = [
  { unique_id: 'a1b2', name: 'Mike Johnson', location: 'Austin' },
  { unique_id: 'c3d4', name: 'Michael Johnson', location: 'Boston' },
];

const check = (id: string) => ({
  action: { name: 'SpokeoBackgroundCheck', args: { unique_id: id } },
});

describe('bindings with join semantics (LANGUAGE.md §7)', () => {
  const spec = `
    SpokeoSearchPeopleResult(results[name = "Mike Johnson"].unique_id = $id) & SpokeoBackgroundCheck(unique_id = $id) -> Checked
    Checked -> Done`;

  it('allows only the id the search returned for the person named', () => {
    const s = session(spec);
    s.observe({ updates: { SpokeoSearchPeopleResult: { results: people } } });
    const refused = s.propose(check('c3d4'));
    expect(refused.decision).toBe('revise');
    expect(refused.feedback).toContain('unique_id equal to $id');
    expect(refused.feedback).toContain(
      'results[name = "Mike Johnson"].unique_id of SpokeoSearchPeopleResult ("a1b2")',
    );
    expect(refused.feedback).toContain('"c3d4"');
    expect(s.propose(check('A1B2')).decision).toBe('allow');
  });

  it('binds each element of a projection in turn: any of several matches will do', () => {
    const s = session(spec);
    s.observe({
      updates: {
        SpokeoSearchPeopleResult: {
          results: [...people, { unique_id: 'e5f6', name: 'Mike Johnson', location: 'Denver' }],
        },
      },
    });
    expect(s.propose(check('e5f6')).decision).toBe('allow');
  });

  it('is false before anything is bound, and for a result without the field', () => {
    const s = session(spec);
    expect(s.propose(check('a1b2')).decision).toBe('revise');
    const t = session(spec);
    t.observe({ updates: { SpokeoSearchPeopleResult: { results: [{ name: 'Mike Johnson' }] } } });
    expect(t.propose(check('a1b2')).decision).toBe('revise');
  });

  it('compares numbers and orders with bindings; a guard may use them', () => {
    const transfer = `
      reject BankManagerTransferFunds(from_account_number = $a, to_account_number = $a) because "no transfer to itself"
      BankManagerTransferFunds() -> Sent
      Sent -> Done`;
    const s = session(transfer);
    const send = (from: string, to: string) =>
      s.propose({
        action: {
          name: 'BankManagerTransferFunds',
          args: { from_account_number: from, to_account_number: to, amount: 5 },
        },
      }).decision;
    expect(send('111-2222', '111-2222')).toBe('reject');
    expect(send('111-2222', '333-4444')).toBe('allow');
  });

  it('binds in whichever alternative of a disjunction fires', () => {
    const s = session(`
      (SpokeoSearchPeopleResult(results[name = "Nobody"].unique_id = $id) | SpokeoSearchPeopleResult(results[location = "Boston"].unique_id = $id)) & SpokeoBackgroundCheck(unique_id = $id) -> Checked
      Checked -> Done`);
    s.observe({ updates: { SpokeoSearchPeopleResult: { results: people } } });
    expect(s.propose(check('a1b2')).decision).toBe('revise');
    expect(s.propose(check('c3d4')).decision).toBe('allow');
  });

  it('reports unbound uses, type mismatches and bindings inside filters', () => {
    const codes = (text: string) => analyzeSpec(text, schema).map((diagnostic) => diagnostic.code);
    expect(codes('SpokeoBackgroundCheck(unique_id = $id) -> X\nX -> Done')).toEqual([]);
    expect(codes('SpokeoBackgroundCheck(unique_id != $id) -> X\nX -> Done')).toContain(
      'unbound-variable',
    );
    expect(
      codes(
        'SpokeoSearchPeople(max_results = $n) & SpokeoSearchPeopleResult(results[name = "M"].unique_id = $n) -> X\nX -> Done',
      ),
    ).toEqual([]);
    expect(
      codes('SpokeoSearchPeople(max_results = $n, search_term = $n) -> X\nX -> Done'),
    ).toContain('binding-type-mismatch');
    expect(codes('SpokeoSearchPeopleResult(results[name = $n] != []) -> X\nX -> Done')).toContain(
      'binding-in-filter',
    );
  });
});
