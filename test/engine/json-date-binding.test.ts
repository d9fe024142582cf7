import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createSession } from '../../src/engine/index.js';
import { checkSpec, type Schema, unwrap } from '../../src/language/index.js';
import { loadStateSchema } from '../../src/schema/index.js';

/**
 * `json-date-binding` (a warning): a json value is text where a tool wrote a date, so a
 * binding that joins it with a typed date, time or date-time never matches in a rule and
 * always fires in a guard — unless the json side is read `as date`. Each warned case is
 * checked against the engine: the mismatch is real, and the suggested fix makes it match.
 */
const schema: Schema = unwrap(
  loadStateSchema(
    JSON.stringify({
      ...JSON.parse(
        readFileSync(
          new URL('../golden/diagnostics/json-date-binding/states.json', import.meta.url),
          'utf8',
        ),
      ),
      Sync: {
        kind: 'action',
        critical: true,
        description: 'Syncs a calendar from a day on.',
        variables: [
          { name: 'since', type: 'Date' },
          { name: 'at', type: 'Time' },
          { name: 'meta', type: 'Json', description: "An object with 'day' and 'hour'." },
        ],
      },
    }),
    { id: 'calendar' },
  ),
);
const now = '2025-03-14T12:00';

function warnings(text: string): string[] {
  return unwrap(checkSpec(text, schema)).warnings.map((warning) => warning.code);
}

function decide(text: string, proposal: unknown, items?: unknown[]): string {
  const session = createSession(unwrap(checkSpec(text, schema)), { now });
  if (items !== undefined) session.observe({ updates: { CalendarResult: { items } } });
  return session.propose(proposal).decision;
}

const items = [
  { title: 'dentist', start: '2025-03-20' },
  { title: 'gym', start: '2025-03-21' },
];
const remind = (day: string) => ({ action: { name: 'CreateReminder', args: { day, note: 'x' } } });

describe('json-date-binding', () => {
  it('warns when a json binder is compared with a typed date, and the rule indeed never fires', () => {
    const spec =
      'CalendarResult(items[title = "dentist", start = $d]) & CreateReminder(day = $d) -> Reminded\nReminded -> Done';
    expect(warnings(spec)).toEqual(['json-date-binding']);
    expect(decide(spec, remind('2025-03-20'), items)).toBe('revise');
    // The fix the warning suggests: the json side read as a date.
    const fixed = spec.replace('start = $d', 'start as date = $d');
    expect(warnings(fixed)).toEqual([]);
    expect(decide(fixed, remind('2025-03-20'), items)).toBe('allow');
    expect(decide(fixed, remind('2025-03-21'), items)).toBe('revise');
  });

  it('warns when a typed date binder is compared with a json value, and the rule indeed never fires', () => {
    const spec = 'MoveEvent(from = $f) & CalendarResult(items[start = $f]) -> Moved\nMoved -> Done';
    expect(warnings(spec)).toEqual(['json-date-binding']);
    const move = { action: { name: 'MoveEvent', args: { from: '2025-03-20', title: 'dentist' } } };
    expect(decide(spec, move, items)).toBe('revise');
    const fixed = spec.replace('start = $f', 'start as date = $f');
    expect(warnings(fixed)).toEqual([]);
    expect(decide(fixed, move, items)).toBe('allow');
  });

  it('in a guard the dead comparison fires on every value; read as a time, only on the same one', () => {
    const guard =
      'Sync() -> Synced\nSynced -> Done\nreject Sync(at = $t, meta.hour = $t) because "not at that hour"';
    expect(warnings(guard)).toEqual(['json-date-binding']);
    const sync = (hour: string) => ({
      action: { name: 'Sync', args: { since: '2025-03-01', at: '09:00', meta: { hour } } },
    });
    expect(decide(guard, sync('09:00'))).toBe('reject');
    expect(decide(guard, sync('17:30'))).toBe('reject');
    const fixed = guard.replace('meta.hour = $t', 'meta.hour as time = $t');
    expect(warnings(fixed)).toEqual([]);
    expect(decide(fixed, sync('09:00'))).toBe('reject');
    expect(decide(fixed, sync('17:30'))).toBe('allow');
  });

  it('does not warn where the comparison can hold', () => {
    for (const spec of [
      // json with json, text with json, a json side read as a date.
      'CalendarResult(items[title = "gym", start = $d]) & CalendarResult(items[title = "x", start = $d]) -> A\nA -> Done',
      'CalendarResult(items[start = "2025-03-20", title = $t]) & MoveEvent(title = $t) -> A\nA -> Done',
      'Sync(since = $s, meta.day as date = $s) -> A\nA -> Done',
      // `contains` reads text.
      'CalendarResult(items[title = "gym", start = $d]) & CreateReminder(note contains $d) -> A\nA -> Done',
    ])
      expect(warnings(spec), spec).toEqual([]);
  });

  it('warns on a time and a date-time as on a date', () => {
    expect(warnings('Sync(at = $t, meta.hour = $t) -> A\nA -> Done')).toEqual([
      'json-date-binding',
    ]);
  });

  it('is a warning: the spec still checks and runs', () => {
    const result = checkSpec(
      'MoveEvent(from = $f) & CalendarResult(items[start = $f]) -> Moved\nMoved -> Done',
      schema,
    );
    expect(result.ok).toBe(true);
    expect(result.diagnostics.map((diagnostic) => diagnostic.severity)).toEqual(['warning']);
  });
});
