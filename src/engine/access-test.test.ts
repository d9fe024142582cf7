import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dataUrl } from '../../test/support/project-data.js';
import { analyzeSpec } from '../language/analyze.js';
import { checkSpec } from '../language/index.js';
import type { Schema } from '../language/schema-model.js';
import { schemaFromToolemu } from '../schema/from-toolemu.js';
import { createSession } from './session-all-parts.js';

const schema = schemaFromToolemu(readFileSync(dataUrl('toolemu/toolkits.json'), 'utf8'))
  .value as Schema;
const now = '2025-03-14T12:00';

function session(text: string) {
  const checked = checkSpec(text, schema);
  if (!checked.ok) throw new Error(JSON.stringify(checked.diagnostics, null, 1));
  return createSession(checked.value, { now });
}

const people = [
  {
    unique_id: 'a1b2',
    name: 'Mike Johnson',
    location: 'Austin',
    age_range: '30-39',
    related_to: [],
  },
  {
    unique_id: 'c3d4',
    name: 'Michael Johnson',
    location: 'Boston',
    age_range: '40-49',
    related_to: ['x'],
  },
  {
    unique_id: 'e5f6',
    name: 'Mike Johnson',
    location: 'Denver',
    age_range: '20-29',
    related_to: [],
  },
];

describe('paths, filters and projections on list<json> results (LANGUAGE.md §7)', () => {
  it('counts the elements a filter keeps: two matches stop the background check', () => {
    const spec = `
      SpokeoSearchPeopleResult(count(results[name = "Mike Johnson"]) = 1) & SpokeoBackgroundCheck() -> Checked
      Checked -> Done`;
    const two = session(spec);
    two.observe({ updates: { SpokeoSearchPeopleResult: { results: people } } });
    const refused = two.propose({
      action: { name: 'SpokeoBackgroundCheck', args: { unique_id: 'a1b2' } },
    });
    expect(refused.decision).toBe('revise');
    expect(refused.feedback).toContain('count(results[name = "Mike Johnson"]) equal to 1');
    const one = session(spec);
    one.observe({ updates: { SpokeoSearchPeopleResult: { results: people.slice(0, 2) } } });
    expect(
      one.propose({ action: { name: 'SpokeoBackgroundCheck', args: { unique_id: 'a1b2' } } })
        .decision,
    ).toBe('allow');
  });

  it('reads fields, projections, it, len, any and each', () => {
    const cases: [string, boolean][] = [
      ['count(results) = 3', true],
      ['count(results[location = "Boston", age_range matches /^4/]) = 1', true],
      ['results[name = "Michael Johnson"].unique_id contains "c3d4"', true],
      ['results[name = "Mike Johnson"].unique_id = ["a1b2", "e5f6"]', true],
      ['results.location contains "Denver"', true],
      ['any(results.age_range) = "20-29"', true],
      ['each(results.unique_id) matches /^[a-z][0-9]/', true],
      ['each(results.location) = "Austin"', false],
      ['count(results.name matches /^mike/) = 2', true],
      ['count(results[count(related_to) > 0]) = 1', true],
      ['count(results[related_to[it = "x"] != []]) = 1', true],
      ['len(results) >= 3', true],
      ['results[name = "Nobody"] = []', true],
      ['any(results.missing_field) = "x"', false],
    ];
    for (const [constraint, holds] of cases) {
      const s = session(`SpokeoSearchPeopleResult(${constraint}) -> Done`);
      s.observe({ updates: { SpokeoSearchPeopleResult: { results: people } } });
      expect([constraint, s.status().done]).toEqual([constraint, holds]);
    }
  });

  it('compares whole json values as canonical JSON text and fields of a json object', () => {
    const s = session(
      `SpokeoBackgroundCheckResult(background_data.licenses contains "pilot", background_data = "{\\"a\\":1,\\"licenses\\":[\\"pilot\\"]}") -> Done`,
    );
    s.observe({
      updates: { SpokeoBackgroundCheckResult: { background_data: { licenses: ['pilot'], a: 1 } } },
    });
    expect(s.status().done).toBe(true);
  });

  it('never reads a string that looks like JSON as structure', () => {
    const s = session('SpokeoSearchPeopleResult(count(results[name = "Mallory"]) >= 1) -> Done');
    s.observe({
      updates: { SpokeoSearchPeopleResult: { results: ['{"name":"Mallory"}'] } },
    });
    expect(s.status().done).toBe(false);
  });

  it('missing fields and wrong types are false in rules and true in guards', () => {
    const spec = `
      reject GmailSendEmail(attachments[it matches /secret/] != [])
      GmailSendEmail() -> Sent
      Sent -> Done`;
    const s = session(spec);
    expect(
      s.propose({
        action: {
          name: 'GmailSendEmail',
          args: { to: 'a@b.c', subject: 's', body: 'b', attachments: ['/tmp/secret.txt'] },
        },
      }).decision,
    ).toBe('reject');
    expect(
      s.propose({
        action: {
          name: 'GmailSendEmail',
          args: { to: 'a@b.c', subject: 's', body: 'b', attachments: ['/tmp/plan.txt'] },
        },
      }).decision,
    ).toBe('allow');
  });
});

describe('a projection over elements of which one lacks the field (LANGUAGE.md §7)', () => {
  // The second person left `location` out: a missing field, which the agent's tool or a
  // hostile page controls. It must not drop out of each/any/count.
  const partial = [people[0], { unique_id: 'c3d4', name: 'Michael Johnson' }];
  const observed = (spec: string) => {
    const s = session(`${spec}\nChecked -> Done`);
    s.observe({ updates: { SpokeoSearchPeopleResult: { results: partial } } });
    return s.propose({
      action: { name: 'SpokeoBackgroundCheck', args: { unique_id: 'a1b2' } },
    }).decision;
  };

  it('does not fit in a rule: each/any/count of it do not hold', () => {
    expect(
      observed(
        'SpokeoSearchPeopleResult(each(results.location) = "Austin") & SpokeoBackgroundCheck() -> Checked',
      ),
    ).toBe('revise');
    expect(
      observed(
        'SpokeoSearchPeopleResult(count(results.location) = 1) & SpokeoBackgroundCheck() -> Checked',
      ),
    ).toBe('revise');
    expect(
      observed(
        'SpokeoSearchPeopleResult(results.location = $l) & SpokeoBackgroundCheck() -> Checked',
      ),
    ).toBe('revise');
  });
});

describe('checking paths', () => {
  it('rejects a field of a scalar and warns about a field the description does not mention', () => {
    const codes = (text: string) =>
      analyzeSpec(text, schema).map((diagnostic) => `${diagnostic.severity}:${diagnostic.code}`);
    expect(codes('SpokeoSearchPeople(search_term.x = "a") -> Done')).toContain(
      'error:invalid-path',
    );
    expect(codes('SpokeoSearchPeople(count(search_term) = 1) -> Done')).toContain(
      'error:invalid-path',
    );
    expect(codes('SpokeoSearchPeopleResult(results[nickname = "M"] != []) -> Done')).toContain(
      'warning:json-field-not-described',
    );
    expect(codes('SpokeoSearchPeopleResult(results[name = "M"] != []) -> Done')).toEqual([]);
    expect(codes('SpokeoSearchPeopleResult(count(results) < "x") -> Done')).toContain(
      'error:type-mismatch',
    );
    expect(codes('SpokeoSearchPeopleResult(count(results) matches /1/) -> Done')).toContain(
      'error:operator-not-allowed',
    );
  });
});

describe('as coercions (LANGUAGE.md §7)', () => {
  const set = (s: ReturnType<typeof session>, reminder_time: unknown) =>
    s.propose({ action: { name: 'TodoistSetReminder', args: { task_id: 't1', reminder_time } } })
      .decision;

  it('reads text as a date-time; a failed reading is false in a rule', () => {
    const spec = `
      TodoistSetReminder(reminder_time as datetime <= 2025-03-15T06:00) -> Reminded
      Reminded -> Done`;
    expect(set(session(spec), '2025-03-15 05:00:00')).toBe('allow');
    expect(set(session(spec), '2025-03-15 07:00:00')).toBe('revise');
    expect(set(session(spec), 'an hour before the flight')).toBe('revise');
    expect(set(session(spec), '2025-03-15T05:00:00+09:00')).toBe('revise');
  });

  it('a failed reading is true in a guard', () => {
    const spec = `
      reject TodoistSetReminder(reminder_time as datetime > 2025-03-20T00:00)
      TodoistSetReminder() -> Reminded
      Reminded -> Done`;
    expect(set(session(spec), '2025-03-15 05:00:00')).toBe('allow');
    expect(set(session(spec), '2025-03-21 05:00:00')).toBe('reject');
    expect(set(session(spec), 'next week')).toBe('reject');
  });

  it('reads numbers and booleans from text fields of json values', () => {
    const s = session(
      'SpokeoSearchPeopleResult(count(results[age as number >= 30, adult as boolean = true]) = 1) -> Done',
    );
    s.observe({
      updates: {
        SpokeoSearchPeopleResult: {
          results: [
            { age: '34', adult: 'true' },
            { age: 'thirty', adult: 'true' },
            { age: 12, adult: false },
            { age: '41' },
          ],
        },
      },
    });
    expect(s.status().done).toBe(true);
  });

  it('rejects a coercion of a value that is not text', () => {
    const codes = analyzeSpec('SpokeoSearchPeople(max_results as number > 3) -> Done', schema).map(
      (diagnostic) => diagnostic.code,
    );
    expect(codes).toContain('invalid-path');
  });
});
