import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSession, type Session } from '../src/engine/index.js';
import { checkSpec, type Schema, type Spec } from '../src/language/index.js';
import { loadStateSchema } from '../src/schema/index.js';
import { formatMicros, measureDecisions, table } from './measure.js';

/**
 * Frame-condition rows of `npm run bench` (LANGUAGE.md §9): a GUI step over the Clock
 * app's states (examples/clock, 21 settings marked) that turns on show seconds, with the
 * settings marked and without (what the check costs an allowed step), and a step that also
 * switches on the automatic home clock unasked (`unplanned-change`, with its feedback).
 */
const now = '2025-03-14T12:00';
type StatesFile = Record<string, { variables: Record<string, unknown>[] }>;
const states = JSON.parse(
  readFileSync(join(process.cwd(), 'examples', 'clock', 'states.json'), 'utf8'),
) as StatesFile;
const unmarked: StatesFile = Object.fromEntries(
  Object.entries(states).map(([name, predicate]) => [
    name,
    {
      ...predicate,
      variables: predicate.variables.map(({ setting: _setting, ...variable }) => variable),
    },
  ]),
);

function specOver(file: StatesFile): Spec {
  const schema = loadStateSchema(JSON.stringify(file)).value as Schema;
  const result = checkSpec('DisplayTimeWithSeconds(display_seconds = true) -> Done', schema);
  if (!result.ok) throw new Error(`bench frame spec: ${result.diagnostics[0]?.message}`);
  return result.value;
}

const marked = specOver(states);
const plain = specOver(unmarked);
const reported = {
  updates: {
    DisplayTimeWithSeconds: { display_seconds: false },
    AutomaticHomeClock: { automatic_home_clock: false },
    TimerSettings: { timer_vibrate: true, timer_sound: 'Beep' },
  },
};
const showSeconds = {
  updates: {
    SelectedTab: { selected_tab: 'Clock' },
    DisplayTimeWithSeconds: { display_seconds: true },
    TimerSettings: { timer_vibrate: true, timer_sound: 'Beep' },
  },
};
const alsoHomeClock = {
  updates: {
    DisplayTimeWithSeconds: { display_seconds: true },
    AutomaticHomeClock: { automatic_home_clock: true },
  },
};

function measure(count: number, spec: Spec, proposal: unknown, expected: string) {
  return measureDecisions({
    count,
    // A refused step goes through when proposed again: each refusal gets a fresh session.
    renewEvery: expected === 'allow' ? 500 : 1,
    session: (): Session => {
      const session = createSession(spec, { now });
      session.observe(reported);
      return session;
    },
    proposal: () => proposal,
    expected,
  });
}

export function frameConditionsBench(proposals: number): void {
  const count = Math.max(1_000, Math.min(proposals, 20_000));
  const rows = (
    [
      ['show seconds, three settings in the step, schema marks none', plain, showSeconds, 'allow'],
      [
        'show seconds, three settings in the step, 21 settings marked',
        marked,
        showSeconds,
        'allow',
      ],
      [
        'show seconds + automatic home clock unasked (unplanned-change)',
        marked,
        alsoHomeClock,
        'revise',
      ],
    ] as const
  ).map(([label, spec, proposal, expected]) => {
    const timing = measure(count, spec, proposal, expected);
    return [
      label,
      timing.ok ? expected : 'WRONG',
      formatMicros(timing.p50),
      formatMicros(timing.p99),
    ];
  });
  console.log(
    `\nFrame conditions: GUI steps over the Clock app's states (${count.toLocaleString('en-US')} proposals; µs, timer overhead subtracted)`,
  );
  console.log(table(['proposal', 'decision', 'p50', 'p99'], rows));
}
