import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadEngineParts } from '../engine/load-parts.js';
import { CompiledSpecError } from '../language/compiled-spec-format.js';
import { checkSpec, unwrap } from '../language/index.js';
import { readCompiledSpec } from '../language/read-compiled-spec.js';
import { writeCompiledSpec } from '../language/write-compiled-spec.js';
import { loadStateSchema } from '../schema/index.js';
import { loadCompiledGuard } from './compiled-guard.js';
import { createGuard } from './create-guard.js';

/**
 * Settings (`"setting": true`, LANGUAGE.md §9) through a compiled spec and a page's guard:
 * the marking must survive the document (losing it would fail open), and a page loads
 * the frame-condition part only for a schema that marks a setting.
 */
/** The Clock app's states (examples/clock), with the tap a GUI agent proposes its updates by. */
const schema = unwrap(
  loadStateSchema({
    ...JSON.parse(
      readFileSync(new URL('../../examples/clock/states.json', import.meta.url), 'utf8'),
    ),
    Tap: { kind: 'action', description: 'Taps a control on the screen.', variables: [] },
  }),
);
const spec = unwrap(
  checkSpec(
    '# Change the clock display to show seconds\nDisplayTimeWithSeconds(display_seconds = true) -> Done\n',
    schema,
  ),
);
const compiled = JSON.parse(JSON.stringify(writeCompiledSpec(spec))) as {
  schema: { predicates: { name: string; variables: { name: string; setting?: boolean }[] }[] };
};
const options = { now: '2025-03-14T12:00' };
/** The tap that turns on show seconds, and one that also switches on the automatic home clock. */
const showSeconds = {
  id: 'tap-1',
  name: 'Tap',
  updates: { DisplayTimeWithSeconds: { display_seconds: true } },
};
const alsoHomeClock = {
  id: 'tap-2',
  name: 'Tap',
  updates: {
    DisplayTimeWithSeconds: { display_seconds: true },
    AutomaticHomeClock: { automatic_home_clock: true },
  },
};

function settingOf(document: typeof compiled, predicate: string, variable: string): unknown {
  return document.schema.predicates
    .find((each) => each.name === predicate)
    ?.variables.find((each) => each.name === variable)?.setting;
}

describe('settings in compiled specs and page guards', () => {
  it('the compiled document carries every marking, and reads back to the same schema', () => {
    expect(settingOf(compiled, 'DisplayTimeWithSeconds', 'display_seconds')).toBe(true);
    expect(settingOf(compiled, 'AutomaticHomeClock', 'automatic_home_clock')).toBe(true);
    expect(settingOf(compiled, 'SelectedTab', 'selected_tab')).toBeUndefined();
    const read = readCompiledSpec(compiled, { schema });
    expect(read.schema.predicates.get('AutomaticHomeClock')?.variables[0]?.setting).toBe(true);
  });

  it("a document that drops a marking is refused against the host's schema", () => {
    const stripped = structuredClone(compiled);
    for (const predicate of stripped.schema.predicates)
      for (const variable of predicate.variables) delete variable.setting;
    expect(() => readCompiledSpec(stripped, { schema })).toThrow(CompiledSpecError);
    expect(() => readCompiledSpec(stripped, { schema })).toThrow(/AutomaticHomeClock|differs/);
  });

  it('a marking that is not a boolean is refused', () => {
    const bad = structuredClone(compiled) as unknown as {
      schema: { predicates: { variables: Record<string, unknown>[] }[] };
    };
    const first = bad.schema.predicates.find((predicate) =>
      predicate.variables.some((variable) => variable['setting'] === true),
    );
    const variable = first?.variables.find((each) => each['setting'] === true);
    if (variable === undefined) throw new Error('no setting in the document');
    variable['setting'] = 'yes';
    expect(() => readCompiledSpec(bad)).toThrow(CompiledSpecError);
  });

  it('the page guard loads the frame part and refuses the unplanned change softly', async () => {
    const guard = await loadCompiledGuard(compiled, options);
    expect(guard.observe({ AutomaticHomeClock: { automatic_home_clock: false } }).ok).toBe(true);
    const refused = guard.check(alsoHomeClock);
    expect(refused.action).toBe('refuse');
    expect(refused.verdict.reasons[0]?.code).toBe('unplanned-change');
    expect(refused.message).toContain('automatic_home_clock');
    expect(refused.message).toContain('from false to true');
    expect(guard.check(showSeconds).action).toBe('run');
    // The Node guard from the text decides the same.
    const fromText = createGuard(spec, undefined, options);
    fromText.observe({ AutomaticHomeClock: { automatic_home_clock: false } });
    expect(fromText.check(alsoHomeClock).verdict).toEqual(refused.verdict);
  });

  it('a host that gives parts without the frame part is refused, never unchecked', async () => {
    const parts = await loadEngineParts(['paths']);
    await expect(loadCompiledGuard(compiled, { ...options, parts })).rejects.toThrow(
      /marks settings/,
    );
  });
});
