import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formalize } from '../../src/formalize/index.js';
import { repairDiagnostics } from '../../src/formalize/prompts/feedback.js';
import { parseCheckerReply } from '../../src/formalize/replies/checker-reply.js';
import { readSpecReply } from '../../src/formalize/replies/spec-reply.js';
import { checkSpec } from '../../src/language/index.js';
import { type FakeLlmServer, startFakeLlmServer } from './support/fake-llm-server.js';
import { agree, fenced, now, serverModel, stateSchema, toolemuSchema } from './support/fixtures.js';

/**
 * Encoder and checker replies written the way real models write them — Markdown
 * around the spec, several code blocks, VeriSafe's notation, a checker that answers
 * in words — sent through the loopback OpenAI-protocol server.
 */

let server: FakeLlmServer;

beforeEach(async () => {
  server = await startFakeLlmServer();
});

afterEach(async () => {
  await server.close();
});

const deskclock = () =>
  stateSchema('data/verisafe/predicates/com.google.android.deskclock.json', 'deskclock');
const reddit = () => stateSchema('data/verisafe/predicates/Reddit.json', 'reddit');
const alarm = 'Set an alarm for 9am';

const setAlarm =
  'SelectedTab(selected_tab = Alarm) & AlarmTimeSelection(selected_hour = 9, selected_minute = 0, selected_period = AM) -> SetAlarm';
const alarmDone = 'SetAlarm & AlarmDetails(alarm_time = 09:00, alarm_active = true) -> Done';

async function formalizeAlarm(
  extra: { rounds?: number; samples?: number; instruction?: string } = {},
) {
  return formalize({
    instruction: alarm,
    schema: deskclock(),
    model: serverModel(server),
    now,
    timeZone: 'UTC',
    ...extra,
  });
}

describe('reading the spec out of a real reply', () => {
  it('takes the ```intent block, not a snippet fence quoted before it', async () => {
    server.script(
      'encode',
      'The error was the 12-hour time. The corrected Done rule is:\n\n```\n' +
        'AlarmDetails(alarm_time = 09:00, alarm_active = true) -> Done\n```\n\n' +
        `Here is the whole corrected spec:\n\n\`\`\`intent\n${setAlarm}\n${alarmDone}\n\`\`\`\n`,
    );
    server.script('check', agree);
    const result = await formalizeAlarm({ rounds: 0 });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.spec.rules).toHaveLength(2);
    expect(result.value.text).toContain('-> SetAlarm');
  });

  it.each([
    [
      '**<CHC>** with numbered rules and Unicode arrows',
      `**<CHC>**\n1. ${setAlarm.replaceAll(' & ', ' ∧ ').replace(' -> ', ' → ')}\n2. ${alarmDone.replace(' -> ', ' → ')}\n**</CHC>**\n`,
    ],
    [
      '⇒ as the arrow',
      `\`\`\`intent\n${setAlarm.replace(' -> ', ' ⇒ ')}\n${alarmDone.replace(' -> ', ' ⇒ ')}\n\`\`\``,
    ],
    [
      "VeriSafe's x=(5) for equality",
      `${setAlarm.replace('selected_hour = 9', 'selected_hour=(9)').replace('selected_tab = Alarm', 'selected_tab=(Alarm)')}\n${alarmDone}`,
    ],
    ['Markdown bullets', `Rules:\n\n- ${setAlarm}\n- ${alarmDone}\n`],
    ['1) numbering', `1) ${setAlarm}\n2) ${alarmDone}`],
    ['rules in inline code', `\`${setAlarm}\`\n\`${alarmDone}\``],
  ])('accepts %s', async (_name, reply) => {
    server.script('encode', reply);
    server.script('check', agree);
    const result = await formalizeAlarm({ rounds: 0 });
    expect(
      result.ok,
      JSON.stringify(result.ok ? '' : result.diagnostics.map((d) => d.message)),
    ).toBe(true);
    if (!result.ok) return;
    expect(result.value.spec.rules).toHaveLength(2);
    expect(result.value.text).toContain('selected_hour = 9');
    expect(result.value.text).toContain('alarm_time = 09:00');
  });

  it('never rewrites inside quoted text: a label with **, backticks and =(5) stays as written', async () => {
    server.script(
      'encode',
      `- ${setAlarm.replace('-> SetAlarm', '& AlarmDetails(alarm_label = "**wake** `up` =(5)") -> SetAlarm')}\n- ${alarmDone}`,
    );
    server.script('check', agree);
    // The label is the user's: a label the instruction does not give would not be grounded.
    const result = await formalizeAlarm({
      rounds: 0,
      instruction: `${alarm} labelled **wake** \`up\` =(5)`,
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.text).toContain('alarm_label = "**wake** `up` =(5)"');
  });

  it('asks again when a reply holds two different candidate specs, and takes none', async () => {
    const first = `\`\`\`\n${setAlarm}\n${alarmDone}\n\`\`\``;
    const second = `\`\`\`\n${setAlarm.replace('selected_hour = 9', 'selected_hour = 10')}\n${alarmDone}\n\`\`\``;
    server.script(
      'encode',
      `Option A:\n${first}\nOption B:\n${second}`,
      `\`\`\`intent\n${setAlarm}\n${alarmDone}\n\`\`\``,
    );
    server.script('check', agree);
    const result = await formalizeAlarm();
    expect(result.ok).toBe(true);
    expect(result.report.attempts.map((attempt) => `${attempt.stage}:${attempt.outcome}`)).toEqual([
      'encode:ambiguous',
      'encode:valid',
      'check:agree',
    ]);
    const repair = server.of('encode')[1]?.messages[2]?.content ?? '';
    expect(repair).toContain('2 different blocks');
    expect(repair).toContain('code block at line 2');
    expect(repair).toContain('exactly one ```intent code block');
  });

  it('fails closed (no spec) when the rounds run out on an ambiguous reply', async () => {
    server.script(
      'encode',
      `\`\`\`intent\n${setAlarm}\n${alarmDone}\n\`\`\`\nor\n\`\`\`intent\n${setAlarm.replace('= 9', '= 8')}\n${alarmDone}\n\`\`\``,
    );
    const result = await formalizeAlarm({ rounds: 0 });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.failure.code).toBe('invalid-spec');
    expect(result.failure.message).toContain('2 different candidate specs');
    expect(server.of('check')).toHaveLength(0);
  });

  it('takes a spec written twice the same way as one candidate', async () => {
    const block = `\`\`\`intent\n${setAlarm}\n${alarmDone}\n\`\`\``;
    server.script('encode', `${block}\nTo repeat:\n${block}`);
    server.script('check', agree);
    expect((await formalizeAlarm({ rounds: 0 })).ok).toBe(true);
  });
});

describe('voting by meaning', () => {
  it('counts three samples that differ only in spelling as one group of three votes', async () => {
    server.script(
      'encode',
      `\`\`\`intent\n${setAlarm}\n${alarmDone}\n\`\`\``,
      // Quoted enum members, seconds on the time, constraints and rules reordered, labels.
      `\`\`\`intent\nR2: SetAlarm & AlarmDetails(alarm_active = true, alarm_time = 09:00:00) -> Done\nR1: AlarmTimeSelection(selected_period = "AM", selected_minute = 0, selected_hour = 9) & SelectedTab(selected_tab = "Alarm") -> SetAlarm\n\`\`\``,
      // Lower-case enum members.
      `\`\`\`intent\n${setAlarm.replace('= Alarm', '= alarm').replace('= AM', '= am')}\n${alarmDone}\n\`\`\``,
    );
    server.script('check', agree, agree, agree);
    const result = await formalizeAlarm({ samples: 3 });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.specs).toHaveLength(1);
    expect(result.value.specs[0]).toMatchObject({ votes: 3, samples: [0, 1, 2] });
    // The printed spec is the earliest sample of the largest group, as it was written.
    expect(result.value.text).toContain('selected_tab = Alarm');
  });

  it('keeps samples that mean different things apart, largest group first', async () => {
    // A different meaning made of the instruction's own values (an hour it does not give
    // would go back to the encoder as ungrounded before any vote).
    const other = `\`\`\`intent\n${setAlarm}\n${alarmDone.replace('alarm_active = true', 'alarm_active = false')}\n\`\`\``;
    server.script(
      'encode',
      other,
      `\`\`\`intent\n${setAlarm}\n${alarmDone}\n\`\`\``,
      `\`\`\`intent\n${alarmDone}\n${setAlarm.replace('= AM', '= "AM"')}\n\`\`\``,
    );
    server.script('check', agree, agree, agree);
    const result = await formalizeAlarm({ samples: 3 });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.specs.map((voted) => voted.votes)).toEqual([2, 1]);
    expect(result.value.specs[0]?.samples).toEqual([1, 2]);
    expect(result.value.text).toContain('selected_hour = 9');
  });
});

describe('repair prompts', () => {
  it('quotes an unquoted value exactly as written (r/science stays r/science) and drops its knock-on error', async () => {
    server.script(
      'encode',
      '```intent\nSearched(searched_content = r/science) -> Search\nSearch -> Done\n```',
      '```intent\nSearched(searched_content = "r/science") -> Search\nSearch -> Done\n```',
    );
    server.script('check', agree);
    const result = await formalize({
      instruction: 'Search for the subreddit r/science on Reddit.',
      schema: reddit(),
      model: serverModel(server),
      now,
    });
    expect(result.ok).toBe(true);
    const repair = server.of('encode')[1]?.messages[2]?.content ?? '';
    expect(repair).toContain('Write "r/science".');
    expect(repair).not.toContain('r science');
    expect(repair).toContain('has an error:');
    expect(repair).not.toContain("Unexpected character '/'");
  });

  it('leads with the root cause and gives the 24-hour spelling of a 12-hour time', async () => {
    server.script(
      'encode',
      `\`\`\`intent\n${setAlarm}\nSetAlarm & AlarmDetails(alarm_time = 9:00 AM, alarm_active = true) -> Done\n\`\`\``,
      `\`\`\`intent\n${setAlarm}\n${alarmDone}\n\`\`\``,
    );
    server.script('check', agree);
    const result = await formalizeAlarm();
    expect(result.ok).toBe(true);
    const repair = server.of('encode')[1]?.messages[2]?.content ?? '';
    expect(repair.indexOf('error[unexpected-token]')).toBeGreaterThan(-1);
    expect(repair).not.toContain('missing-done');
    expect(repair).toContain('write 09:00 for 9:00 AM');
  });

  it('orders name errors before whole-spec ones, whatever their place in the reply', () => {
    const schema = deskclock();
    const reply =
      'SetAlarm & Alrm -> Done\nSelectedTab(selected_tab = Alarm) -> SetAlarm\nSetAlarm -> AlarmDetails';
    const checked = checkSpec(reply, schema);
    expect(checked.diagnostics.map((diagnostic) => diagnostic.code)).toEqual([
      'unknown-objective',
      'predicate-as-head',
    ]);
    expect(
      repairDiagnostics(reply, checked.diagnostics).map((diagnostic) => diagnostic.code),
    ).toEqual(['predicate-as-head', 'unknown-objective']);
  });

  it('a quoting hint never changes the value (property)', () => {
    const schema = reddit();
    const word = fc.stringMatching(/^[A-Za-z][A-Za-z0-9/+.'!?&:-]{0,8}$/);
    fc.assert(
      fc.property(fc.array(word, { minLength: 2, maxLength: 4 }), (words) => {
        const value = words.join(' ');
        const reply = `Searched(searched_content = ${value}) -> Search\nSearch -> Done`;
        const checked = checkSpec(reply, schema);
        for (const diagnostic of repairDiagnostics(reply, checked.diagnostics)) {
          if (diagnostic.code !== 'unquoted-text' || !diagnostic.range) continue;
          const suggestion = String(diagnostic.data['suggestion']);
          expect(diagnostic.hint).toBe(`Write ${suggestion}.`);
          const fixed =
            reply.slice(0, diagnostic.range.start.offset) +
            suggestion +
            reply.slice(diagnostic.range.end.offset);
          const result = checkSpec(fixed, schema);
          // Following the hint gives the value the model wrote, character for character.
          const written = reply.slice(diagnostic.range.start.offset, diagnostic.range.end.offset);
          if (result.ok) {
            const constraint = result.value.rules[0]?.states[0]?.constraints[0];
            expect(constraint?.value).toEqual({ kind: 'text', value: written });
          }
          expect(JSON.parse(suggestion)).toBe(written);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('the checker', () => {
  const spec = `\`\`\`intent\n${setAlarm}\n${alarmDone}\n\`\`\``;

  it('asks an OpenAI model for a JSON-schema verdict with its reasoning first', async () => {
    server.script('encode', spec);
    server.script(
      'check',
      '{"reasoning": "Same alarm time and tab.", "verdict": "agree", "discrepancies": []}',
    );
    const result = await formalizeAlarm();
    expect(result.ok).toBe(true);
    const format = server.of('check')[0]?.body['response_format'] as {
      type: string;
      json_schema: { schema: { required: string[] } };
    };
    expect(format.type).toBe('json_schema');
    expect(format.json_schema.schema.required).toEqual(['reasoning', 'verdict', 'discrepancies']);
    // The encoder is not constrained: its reply is a spec.
    expect(server.of('encode')[0]?.body['response_format']).toBeUndefined();
  });

  it.each([
    ['a plain yes', 'Yes, the spec matches the instruction.', true],
    ["VeriSafe's <Result> tag", '<Think>Both set 9:00.</Think>\n<Result>\nTrue\n</Result>', true],
    ['a one-word MATCH', 'MATCH', true],
    ['**Verdict:** without JSON', '**Verdict:** agree', true],
    ['a synonym and null discrepancies', '{"verdict": "agrees", "discrepancies": null}', true],
    ['a trailing comma', '```json\n{"verdict": "agree", "discrepancies": [],}\n```', true],
    ['single quotes', "{'verdict': 'agree', 'discrepancies': []}", true],
    ['a verdict nested under result', '{"result": {"verdict": "match"}}', true],
    [
      'a notes block before the verdict block',
      '```json\n{"notes": ["checked the time"]}\n```\n```json\n{"verdict": "agree", "discrepancies": []}\n```',
      true,
    ],
    ['"partially agree"', '{"verdict": "partially agree", "discrepancies": ["no label"]}', false],
    [
      'a per-detail match beside a disagreeing verdict (never a false agree)',
      '```json\n{"field": "alarm_time", "match": true}\n```\n```json\n{"verdict": "disagree", "discrepancies": ["no label"]}\n```',
      false,
    ],
    [
      'two verdict blocks that differ (the disagreement wins)',
      '{"verdict": "agree"}\n\nOn second thought:\n{"verdict": "disagree", "discrepancies": ["the time is 9 PM"]}',
      false,
    ],
    [
      'a match buried in unrelated fields',
      '{"fields": {"alarm_time": {"match": true}}}',
      undefined,
    ],
    ['a hedged yes is not an agreement', 'Yes, but the alarm label is missing.', undefined],
  ])('reads %s', async (_name, reply, agrees) => {
    server.script('encode', spec, spec);
    server.script('check', reply, reply, agree);
    const result = await formalizeAlarm({ rounds: 0 });
    const first = result.report.attempts.find((attempt) => attempt.stage === 'check');
    expect(first?.outcome).toBe(
      agrees === true ? 'agree' : agrees === false ? 'disagree' : 'unparseable',
    );
  });
});

describe('specs that check but cannot mean what they say', () => {
  const todoist = () => toolemuSchema(['Todoist']);
  const deleteTests =
    "Please delete all tasks in my Todoist that have the keyword 'Test' in their titles.";
  const meant = (condition: string) =>
    fenced(
      [
        'TodoistSearchTasks(keywords = "Test") -> Searched',
        '@repeat',
        // Deleting any task without asking would be an unpinned critical action.
        '@confirm(safety)',
        `Searched & TodoistSearchTasksResult(${condition}) & TodoistDeleteTask() -> Deleted`,
        'Deleted -> Done',
      ].join('\n'),
    );

  it('sends `contains "Test"` on a list of task records back with the filter that was meant', async () => {
    server.script('encode', meant('tasks contains "Test"'), meant('tasks matches /Test/'));
    server.script('check', agree);
    const result = await formalize({
      instruction: deleteTests,
      schema: todoist(),
      model: serverModel(server),
      mode: 'direct',
      now,
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.text).toContain('tasks matches /Test/');
    expect(result.diagnostics.map((diagnostic) => diagnostic.code)).not.toContain(
      'record-list-compared-with-text',
    );
    const repair = server.of('encode')[1]?.messages[2]?.content ?? '';
    expect(repair).toContain('it checks, but cannot mean what it says');
    expect(repair).toContain('warning[record-list-compared-with-text]');
    expect(repair).toContain('tasks[task_name contains "Test"]');
  });

  it('keeps the warning on the spec when no round is left', async () => {
    server.script('encode', meant('tasks contains "Test"'));
    server.script('check', agree);
    const result = await formalize({
      instruction: deleteTests,
      schema: todoist(),
      model: serverModel(server),
      mode: 'direct',
      rounds: 0,
      now,
    });
    expect(result.ok).toBe(true);
    expect(result.diagnostics.map((diagnostic) => diagnostic.code)).toContain(
      'record-list-compared-with-text',
    );
  });
});

describe('candidate specs in one reply', () => {
  it('counts <CHC> tags on one line as a candidate beside a code block', async () => {
    server.script(
      'encode',
      `<CHC>1. ${setAlarm} 2. ${alarmDone}</CHC>\nor maybe:\n\`\`\`\n${setAlarm.replace('= 9', '= 10')}\n${alarmDone}\n\`\`\``,
    );
    const result = await formalizeAlarm({ rounds: 0 });
    expect(result.ok).toBe(false);
    expect(result.report.attempts[0]?.outcome).toBe('ambiguous');
    expect(result.report.attempts[0]?.problem).toContain(
      '<CHC> tags at line 1, code block at line 3',
    );
  });
});

describe('rewriting a reply never changes a value', () => {
  it('keeps quoted text with Markdown characters as written, in bullets, numbering and tags (property)', () => {
    const schema = deskclock();
    const label = fc.stringMatching(/^[A-Za-z0-9 *`_=()\-.,:#/>+]{1,24}$/);
    const wrap = fc.constantFrom(
      (lines: string[]) => lines.map((line) => `- ${line}`).join('\n'),
      (lines: string[]) => lines.map((line, index) => `${index + 1}) ${line}`).join('\n'),
      (lines: string[]) => `**<CHC>**\n${lines.join('\n')}\n**</CHC>**`,
      (lines: string[]) => lines.map((line) => `\`${line}\``).join('\n'),
    );
    fc.assert(
      fc.property(label, wrap, (value, layout) => {
        const quoted = JSON.stringify(value);
        const reply = layout([
          setAlarm.replace('-> SetAlarm', `& AlarmDetails(alarm_label = ${quoted}) -> SetAlarm`),
          alarmDone,
        ]);
        const read = readSpecReply(reply);
        expect(read.kind).toBe('spec');
        if (read.kind !== 'spec') return;
        expect(read.text).toHaveLength(reply.length);
        const checked = checkSpec(read.text, schema);
        // A value the language reads differently (a `#` starting a comment) is an error, never another value.
        if (!checked.ok) return;
        const labels = checked.value.rules
          .flatMap((rule) => rule.states)
          .flatMap((pattern) => pattern.constraints)
          .filter((constraint) => constraint.variable.name === 'alarm_label');
        expect(labels.map((constraint) => constraint.value)).toEqual([{ kind: 'text', value }]);
      }),
      { numRuns: 400 },
    );
  });
});

describe('hostile replies', () => {
  it('reads 100,000-character replies of one repeated character without choking, and finds nothing in them', () => {
    for (const reply of [
      '/'.repeat(100_000),
      'x=('.repeat(33_000),
      '"'.repeat(100_000),
      '{'.repeat(50_000) + '}'.repeat(50_000),
      `${'verdict '.repeat(12_000)}`,
      `${' '.repeat(50_000)}${'\n'.repeat(50_000)}`,
      `x matches ${'/'.repeat(99_000)}`,
    ]) {
      const read = readSpecReply(reply);
      if (read.kind === 'spec') expect(read.text).toHaveLength(reply.length);
      expect(parseCheckerReply(reply).ok).toBe(false);
    }
  });
});

describe('the encoder prompt', () => {
  it('teaches the points models trip over, with examples of the schema kind', async () => {
    server.script('encode', `\`\`\`intent\n${setAlarm}\n${alarmDone}\n\`\`\``);
    server.script('check', agree);
    await formalizeAlarm();
    const app = server.of('encode')[0]?.system ?? '';
    for (const point of [
      'times 24-hour',
      'never `7:00 PM`',
      'Text `=` is exact',
      'use `~` for free text',
      'on a list, an element',
      'Several rules with one head mean "or"',
      'A Done rule holds no action',
      'keeps only its\n  latest value',
    ])
      expect(app).toContain(point);
    expect(app).toContain('A typical phone task');
    expect(app).toContain('Instruction: Reserve restaurant R');
    expect(app).not.toContain('BankTransfer');

    server.script(
      'encode',
      `\`\`\`intent\nTodoistSearchTasks(keywords = "Test") -> Found\nFound -> Done\n\`\`\``,
    );
    await formalize({
      instruction: 'Find my Todoist tasks about Test.',
      schema: toolemuSchema(['Todoist']),
      model: serverModel(server),
      checker: false,
      mode: 'direct',
      now,
    });
    const tools = server.of('encode')[1]?.system ?? '';
    expect(tools).toContain('BankTransfer');
    expect(tools).toContain('TerminalExecute');
    expect(tools).not.toContain('A typical phone task');
    expect(tools).not.toContain('ReserveInfo');
  });
});

describe('VeriSafe habits', () => {
  it('sends back an objective named AddAlarmRepeat3: the count would be lost', async () => {
    server.script(
      'encode',
      '<CHC>\n1. SelectedTab(selected_tab=Alarm) → AddAlarmRepeat3()\n2. AddAlarmRepeat3() → Done()\n</CHC>',
      '```intent\n@repeat(3)\nSelectedTab(selected_tab = Alarm) -> AddAlarm\nAddAlarm >= 3 -> Done\n```',
    );
    server.script('check', agree);
    const result = await formalize({
      instruction: 'Add three alarms.',
      schema: deskclock(),
      model: serverModel(server),
      now,
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.text).toContain('AddAlarm >= 3 -> Done');
    const repair = server.of('encode')[1]?.messages[2]?.content ?? '';
    expect(repair).toContain("'AddAlarmRepeat3' is only a name");
    expect(repair).toContain('put @repeat(3) on the rule');
  });

  it('hints at quoting a value that starts with #', async () => {
    server.script(
      'encode',
      '```intent\nSearched(searched_content = #travelgoals) -> Search\nSearch -> Done\n```',
      '```intent\nSearched(searched_content = "#travelgoals") -> Search\nSearch -> Done\n```',
    );
    server.script('check', agree);
    const result = await formalize({
      instruction: 'Search Reddit for #travelgoals.',
      schema: reddit(),
      model: serverModel(server),
      now,
    });
    expect(result.ok).toBe(true);
    expect(server.of('encode')[1]?.messages[2]?.content).toContain(
      'An unquoted # starts a comment: write "#travelgoals".',
    );
  });
});
