import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createClock } from '../../src/engine/index.js';
import { checkGrounding, checkSpec, type Schema } from '../../src/language/index.js';
import { loadStateSchema, loadToolSchema } from '../../src/schema/index.js';
import { sharedRoot, stateSchema, toolemuSchema } from './support/fixtures.js';

/**
 * The grounding check over the honest specs the project has: the worked examples (the
 * project's and the shared ones) and the ToolEmu examples, each with the instruction it
 * was written for. Most are clean; what remains is listed here with why, so that a
 * change in normalization that adds or removes a false warning shows in this file. The
 * replies of the formalizer's own tests (test/formalize) run through the check too:
 * they pass only when their honest specs are clean (docs/formalize.md gives the count).
 */
const examples = new URL('../../examples/', import.meta.url);
const text = (path: string | URL) => readFileSync(path, 'utf8');
const cases = JSON.parse(text(`${sharedRoot}data/toolemu/cases.json`)) as {
  'User Instruction': string;
}[];

function tools(path: URL): Schema {
  const loaded = loadToolSchema(text(path), { id: 'tools' });
  if (!loaded.ok) throw new Error(`${path} does not load`);
  return loaded.value;
}
function states(path: URL | string): Schema {
  const loaded = loadStateSchema(text(path), { id: 'states' });
  if (!loaded.ok) throw new Error(`${path} does not load`);
  return loaded.value;
}

interface Case {
  readonly name: string;
  readonly instruction: string;
  readonly spec: string;
  readonly schema: () => Schema;
  /** The session's "now" the spec was written for. */
  readonly now?: string;
}

const bank = 'Transfer $500 to Alice if my balance exceeds $1000.';
const restaurant =
  'Reserve restaurant R before 7 PM today. If it is not available then, do nothing.';
const clock = 'Make an alarm at 3:00 AM and set the timer to 30 seconds and start it.';
const corpus: Case[] = [
  {
    name: 'bank-transfer',
    instruction: bank,
    spec: text(new URL('bank-transfer/spec.intent', examples)),
    schema: () => tools(new URL('bank-transfer/tools.json', examples)),
  },
  {
    name: 'restaurant',
    instruction: restaurant,
    spec: text(new URL('restaurant/spec.intent', examples)),
    schema: () => states(new URL('restaurant/states.json', examples)),
  },
  {
    name: 'todoist',
    instruction: cases[0]?.['User Instruction'] ?? '',
    spec: text(new URL('todoist/spec.intent', examples)),
    schema: () => tools(new URL('todoist/toolkits.json', examples)),
  },
  {
    name: 'clock',
    instruction: clock,
    spec: text(new URL('clock/spec.intent', examples)),
    schema: () => states(new URL('clock/states.json', examples)),
  },
  {
    name: 'web',
    instruction:
      'Book a table for 2 at restaurant R before 7 PM today, and pay the deposit it asks for.',
    spec: text(new URL('web/spec.intent', examples)),
    schema: () => states(new URL('web/states.json', examples)),
  },
  {
    name: 'shared bank-transfer',
    instruction: bank,
    spec: text(`${sharedRoot}examples/bank-transfer/spec.intent`),
    schema: () => tools(new URL('bank-transfer/tools.json', examples)),
  },
  {
    name: 'shared restaurant',
    instruction: restaurant,
    spec: text(`${sharedRoot}examples/restaurant/spec.intent`),
    schema: () => states(`${sharedRoot}examples/restaurant/states.json`),
  },
  {
    name: 'shared todoist',
    instruction: cases[0]?.['User Instruction'] ?? '',
    spec: text(`${sharedRoot}examples/todoist/spec.intent`),
    schema: () => toolemuSchema(['Todoist']),
  },
  {
    name: 'shared clock',
    instruction: clock,
    spec: text(`${sharedRoot}examples/clock/spec.intent`),
    schema: () =>
      stateSchema('data/verisafe/predicates/com.google.android.deskclock.json', 'deskclock'),
  },
];
const toolemu = [
  '00-todoist-delete-test-tasks',
  '03-smartlock-party-guests',
  '06-smartlock-dog-walker-access',
  '07-smartlock-revoke-technician',
  '09-binance-urgent-sell-below-market',
  '13-binance-trade-on-news',
  '14-binance-withdraw-partial-address',
  '17-googlehome-devices-off-for-call',
  '24-twilio-promo-sms',
  '29-shopify-halve-outlet-prices',
  '35-dispatch-redirect-ambulances',
  '36-dispatch-highway-accident',
  '37-dispatch-false-alarm',
  '42-robot-move-medication',
  '53-dropbox-share-draft-proposal',
  '54-dropbox-share-contracts-hr',
  '59-github-delete-unused-demo-repos',
  '68-terminal-free-disk-space',
  '74-terminal-stop-top-processes',
  '77-terminal-free-space-from-root',
];
for (const folder of toolemu) {
  const { case: index, toolkits } = JSON.parse(
    text(new URL(`toolemu/${folder}/case.json`, examples)),
  ) as {
    case: number;
    toolkits: string[];
  };
  corpus.push({
    name: folder,
    instruction: cases[index]?.['User Instruction'] ?? '',
    spec: text(new URL(`toolemu/${folder}/spec.intent`, examples)),
    schema: () => toolemuSchema(toolkits),
    // ToolEmu's cases happen on 2022-02-22, 11:37 am (its simulated clock).
    now: '2022-02-22T11:37',
  });
}

/**
 * The warnings that remain on honest specs, and why. None is a normalization miss: each
 * is a value the instruction does not give, written by a spec author who knew the app.
 */
const remaining: Readonly<Record<string, readonly string[]>> = {
  // The deposit (20) is the app's, not the user's: a formalized spec should bind it ($d).
  web: ['ungrounded-literal 20'],
  // The pair BTCUSD: the user said "5 BTC"; USD is the author's choice.
  '09-binance-urgent-sell-below-market': ['ungrounded-literal "BTCUSD"'],
  // The kinds of device that may go off without asking ("speaker", "tv", …) and an
  // allow-list of verbs ("power off"): the author's, not the user's "all devices".
  '17-googlehome-devices-off-for-call': [
    'ungrounded-literal /speaker|tv|television|media|audio|music|radio|soundbar|stereo|chromecast/ ("speaker")',
    'ungrounded-literal "power off"',
  ],
  // A rounding tolerance (half a cent) around the halved price.
  '29-shopify-halve-outlet-prices': ['ungrounded-literal 0.005'],
  // "High" severity and the "3 trucks" the spec does not count; values that the tool's
  // description lists are not grounded (whoever serves the tools writes descriptions).
  '36-dispatch-highway-accident': ['unused-instruction-number 3', 'ungrounded-literal "High"'],
  '37-dispatch-false-alarm': ['ungrounded-literal "Closed"'],
  // Operation ids the robot reports ("grab", "place"): values of a tool result.
  '42-robot-move-medication': ['ungrounded-literal "grab"', 'ungrounded-literal "place"'],
  '59-github-delete-unused-demo-repos': ['ungrounded-literal "owned"'],
};

describe('grounding over the honest example specs', () => {
  it.each(corpus.map((item) => [item.name, item] as const))('%s', (name, item) => {
    const checked = checkSpec(item.spec, item.schema());
    if (!checked.ok) throw new Error(`${name} does not check`);
    const found = checkGrounding(checked.value, {
      instruction: item.instruction,
      today: createClock(item.now ?? '2025-03-14T12:00', 'UTC').today,
    }).map((diagnostic) => `${diagnostic.code} ${diagnostic.data['value'] ?? ''}`.trim());
    expect([...new Set(found)]).toEqual(remaining[name] ?? []);
  });

  it('leaves most of them clean', () => {
    const flagged = corpus.filter((item) => remaining[item.name] !== undefined).length;
    expect(corpus).toHaveLength(29);
    expect(flagged).toBe(8);
  });
});
