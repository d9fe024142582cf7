import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { examplesRoot } from '../../../test/cli/examples.js';
import { run } from '../../../test/cli/run.js';
import {
  type FakeLlmServer,
  startFakeLlmServer,
} from '../../../test/formalize/support/fake-llm-server.js';
import {
  agree,
  fenced,
  restaurantInstruction,
  restaurantSpec,
  sharedRoot,
  testEnv,
} from '../../../test/formalize/support/fixtures.js';

let server: FakeLlmServer;
let directory: string;

beforeEach(async () => {
  server = await startFakeLlmServer();
  directory = mkdtempSync(join(tmpdir(), 'intentguard-cli-formalize-'));
});

afterEach(async () => {
  await server.close();
  rmSync(directory, { recursive: true, force: true });
});

// The project's restaurant example marks what the app reports as observed, so checking
// a spec against it gives no no-observed-state warning on stderr.
const states = `${examplesRoot}restaurant/states.json`;
const toolkits = `${sharedRoot}data/toolemu/toolkits.json`;
const canonical = restaurantSpec.replace(/^R\d: /gm, (label) => label);
const model = () => ['--model', 'openai:gpt-4o', '--base-url', server.url, '--max-retries', '0'];
const formalizeArgs = (...extra: string[]) => [
  'formalize',
  restaurantInstruction,
  '--states',
  states,
  ...model(),
  '--now',
  '2025-03-14T12:00',
  ...extra,
];
const misspelled = restaurantSpec.replace('ReserveResult', 'ReserveResults');

describe('intentguard formalize', () => {
  it('prints the checked spec under the instruction, and nothing on stderr when it is not a terminal', async () => {
    server.script('encode', fenced(misspelled), fenced(restaurantSpec));
    server.script('check', agree);
    const result = await run(formalizeArgs(), { env: testEnv });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`# ${restaurantInstruction}\n${canonical}\n`);
    expect(server.of('encode')[0]?.messages[0]?.content).toContain(
      `Today is Friday, 2025-03-14; the time is 12:00 (time zone ${Intl.DateTimeFormat().resolvedOptions().timeZone}).`,
    );
  });

  it("resolves times in the system's time zone unless --time-zone says otherwise", async () => {
    const saved = process.env['TZ'];
    process.env['TZ'] = 'Asia/Tokyo';
    try {
      server.script('encode', fenced(restaurantSpec), fenced(restaurantSpec));
      const system = await run(formalizeArgs('--no-semantic-check', '--json'), { env: testEnv });
      expect(JSON.parse(system.stdout).timeZone).toBe('Asia/Tokyo');
      expect(server.of('encode')[0]?.messages[0]?.content).toContain('(time zone Asia/Tokyo)');
      const given = await run(
        formalizeArgs('--no-semantic-check', '--time-zone', 'Europe/Berlin'),
        {
          env: testEnv,
        },
      );
      expect(given.code).toBe(0);
      expect(server.of('encode')[1]?.messages[0]?.content).toContain('(time zone Europe/Berlin)');
    } finally {
      if (saved === undefined) delete process.env['TZ'];
      else process.env['TZ'] = saved;
    }
  });

  it('warns when the goal analysis of stage 1 could not be read, and still refines', async () => {
    server.script('goal', 'I will analyse it.', 'Sure!');
    server.script(
      'encode',
      fenced(
        'TodoistSearchTasks(keywords = "Test") -> Found\n@confirm(safety)\nFound & TodoistDeleteTask() -> Deleted\nDeleted -> Done',
      ),
    );
    const result = await run(
      [
        'formalize',
        "Please delete all tasks in my Todoist that have the keyword 'Test' in their titles.",
        '--tools',
        toolkits,
        ...model(),
        '--now',
        '2025-03-14T12:00',
        '--no-semantic-check',
      ],
      { env: testEnv },
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      'warning: the goal analysis (stage 1) could not be read (it contains no JSON object); the spec was refined from the instruction alone.',
    );
  });

  it('reports attempts, diagnostics, usage and cost with --json', async () => {
    server.script('encode', fenced(misspelled), fenced(restaurantSpec));
    server.script('check', agree);
    const result = await run(formalizeArgs('--json', '--max-output-tokens', '500'), {
      env: testEnv,
    });
    expect(result.code).toBe(0);
    expect(server.of('encode')[0]?.body['max_tokens']).toBe(500);
    const json = JSON.parse(result.stdout);
    expect(json).toMatchObject({
      ok: true,
      spec: `# ${restaurantInstruction}\n${canonical}\n`,
      schemaId: 'states',
      model: 'openai:gpt-4o',
      mode: 'direct',
      now: '2025-03-14T12:00',
      samples: [{ sample: 1, ok: true, rounds: 1 }],
      usage: { inputTokens: 3000, outputTokens: 300 },
      memory: null,
      prompt: { predicates: 3, totalPredicates: 3, filtered: false, experiences: [] },
    });
    expect(json.costUsd).toBeCloseTo(0.0105, 10);
    expect(
      json.attempts.map(
        (attempt: { stage: string; outcome: string }) => `${attempt.stage}:${attempt.outcome}`,
      ),
    ).toEqual(['encode:invalid', 'encode:valid', 'check:agree']);
    expect(
      json.attempts[0].diagnostics.find(
        (diagnostic: { severity: string }) => diagnostic.severity === 'error',
      ),
    ).toMatchObject({
      code: 'unknown-predicate',
      file: 'reply',
      range: { start: { line: 5 } },
    });
    expect(json.attempts[2].reading).toContain('Steps:');
  });

  it('fails closed with exit 1 and the diagnostics of the last draft when nothing validates', async () => {
    server.script('encode', fenced(misspelled), fenced(misspelled));
    const result = await run(formalizeArgs('--rounds', '1'), { env: testEnv });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      'intentguard: no valid spec: the spec still had 1 error after 1 repair round.',
    );
    expect(result.stderr).toContain('The last draft (round 2) had these errors:');
    expect(result.stderr).toContain('error[unknown-predicate]');
    expect(result.stderr).toContain('ReserveResults');
    expect(result.stderr).not.toContain('extracted-spec');
  });

  it('prints the whole spec of the ```intent block, not a fixed line quoted before it', async () => {
    const doneLine = restaurantSpec.split('\n')[1] ?? '';
    server.script(
      'encode',
      `The fixed rule is:\n\n\`\`\`\n${doneLine}\n\`\`\`\n\nThe whole spec:\n\n\`\`\`intent\n${restaurantSpec}\n\`\`\`\n`,
    );
    server.script('check', agree);
    const result = await run(formalizeArgs('--rounds', '0'), { env: testEnv });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`# ${restaurantInstruction}\n${canonical}\n`);
  });

  it('never prints a spec taken from a reply with two different candidate specs', async () => {
    const other = restaurantSpec.replaceAll('19:00', '18:00');
    const twoBlocks = `\`\`\`\n${restaurantSpec}\n\`\`\`\nor, stricter:\n\`\`\`\n${other}\n\`\`\``;
    server.script('encode', twoBlocks);
    const result = await run(formalizeArgs('--rounds', '0'), { env: testEnv });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      '2 different candidate specs (code block at line 1, code block at line 7)',
    );
    expect(server.of('check')).toHaveLength(0);
  });

  it('blames the checker model, not the instruction, and shows its reply when it gives no verdict', async () => {
    server.script('encode', fenced(restaurantSpec));
    server.script('check', 'The reading looks fine to me overall.', 'I think so.');
    const result = await run(formalizeArgs(), { env: testEnv });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('the semantic check could not be completed');
    expect(result.stderr).toContain('its last reply was "I think so."');
    expect(result.stderr).toContain('not of the instruction');
    expect(result.stderr).toContain('--no-semantic-check');
  });

  it('says what the checker found when it keeps disagreeing', async () => {
    server.script('encode', fenced(restaurantSpec), fenced(restaurantSpec));
    const said =
      '{"verdict": "disagree", "discrepancies": [{"issue": "No party size", "fix": "add one"}]}';
    server.script('check', said, said);
    const result = await run(formalizeArgs('--rounds', '1'), { env: testEnv });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'the checker found that the spec does not say what the instruction says',
    );
    expect(result.stderr).toContain('What the checker said:\n- No party size (fix: add one)');
  });

  it('exits 2 naming the variable when no key is set', async () => {
    const result = await run(formalizeArgs(), { env: {} });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('OPENAI_API_KEY is not set');
    expect(server.requests).toHaveLength(0);
  });

  it('exits 2 when the model cannot be reached', async () => {
    await server.close();
    const result = await run(formalizeArgs(), { env: testEnv });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('cannot reach');
  });

  it('rejects bad flags as usage errors', async () => {
    for (const flags of [
      ['--samples', '0'],
      ['--rounds', 'many'],
      ['--mode', 'fast'],
      ['--now', 'yesterday-ish'],
      ['--temperature', '3'],
    ]) {
      const result = await run(formalizeArgs(...flags), { env: testEnv });
      expect(result.code, flags.join(' ')).toBe(2);
    }
    expect((await run(['formalize', 'x', ...model()], { env: testEnv })).stderr).toContain(
      'a schema is required',
    );
    expect(
      (await run(['formalize', '  ', '--states', states, ...model()], { env: testEnv })).stderr,
    ).toContain('the instruction is empty');
    expect(
      (await run(['formalize', 'x', '--states', states, '--model', 'gpt-4o'], { env: testEnv }))
        .stderr,
    ).toContain('PROVIDER:MODEL');
    expect(server.requests).toHaveLength(0);
  });

  it('shows progress on stderr when it is a terminal', async () => {
    server.script('encode', fenced(misspelled), fenced(restaurantSpec));
    server.script('check', agree);
    const result = await run(formalizeArgs(), { env: testEnv, stderrIsTerminal: true });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('round 1: 1 error in the draft');
    expect(result.stderr).toContain('round 2: the draft checks');
    expect(result.stderr).toContain('the checker agrees');
    expect(result.stderr).toMatch(/3 model calls, 3300 tokens, ≈ \$0\.0105, \d+\.\d s/);
  });

  it('votes over samples and says how many agreed', async () => {
    server.script(
      'encode',
      fenced(restaurantSpec),
      fenced(restaurantSpec.replaceAll('time < 19:00', 'time <= 19:00')),
      fenced(restaurantSpec),
    );
    const result = await run(formalizeArgs('--samples', '3', '--no-semantic-check', '--json'), {
      env: testEnv,
    });
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json.spec).toContain('# 2 of 3 samples gave this spec (vote split 2-1)');
    expect(json.specs.map((spec: { votes: number }) => spec.votes)).toEqual([2, 1]);
    expect(server.of('check')).toHaveLength(0);
  });

  it('counts samples that differ only in spelling as one spec, and names failed samples', async () => {
    const relabelled = restaurantSpec.replace(/^R\d: /gm, '').replaceAll('"R"', '"r"');
    server.script('encode', fenced(restaurantSpec), fenced(relabelled), fenced('Broken('));
    const result = await run(
      formalizeArgs('--samples', '3', '--rounds', '0', '--no-semantic-check'),
      { env: testEnv },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('# 2 of 3 samples gave this spec (1 failed)\n');
  });

  it('formalizes for a ToolEmu toolkit in two stages', async () => {
    const goal =
      '{"goal": "delete_test_tasks", "parameters": [{"name": "keyword", "value": "Test"}], "outcomes": ["deleted"]}';
    const spec =
      'TodoistSearchTasks(keywords contains "Test") -> Found\n@repeat\n@confirm(safety, "approve each deletion")\nFound & TodoistDeleteTask() -> Deleted\nDeleted -> Done';
    server.script('goal', goal);
    server.script('encode', fenced(spec));
    server.script('check', agree);
    const instruction =
      "Please delete all tasks in my Todoist that have the keyword 'Test' in their titles.";
    const result = await run(
      [
        'formalize',
        instruction,
        '--tools',
        toolkits,
        ...model(),
        '--now',
        '2025-03-14T12:00',
        '--json',
      ],
      { env: testEnv },
    );
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json).toMatchObject({
      ok: true,
      mode: 'two-stage',
      schemaId: 'toolkits',
      prompt: { totalPredicates: 660, filtered: true },
    });
    expect(json.spec).toContain('Found & TodoistDeleteTask() -> Deleted');
  });

  it('records every exchange with --record and replays it with --model replay:FILE', async () => {
    server.script('encode', fenced(misspelled), fenced(restaurantSpec));
    server.script('check', agree);
    const recording = join(directory, 'run.jsonl');
    const recorded = await run(formalizeArgs('--record', recording), { env: testEnv });
    expect(recorded.code).toBe(0);
    const lines = readFileSync(recording, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({
      type: 'run',
      instruction: restaurantInstruction,
      now: '2025-03-14T12:00',
      timeZone: 'UTC',
      model: 'openai:gpt-4o',
    });
    expect(
      lines.slice(1).map((line: { request: { purpose: string } }) => line.request.purpose),
    ).toEqual(['encode', 'encode', 'check']);

    const requests = server.requests.length;
    // No key, no server, no --now: the recording has what the replay needs.
    const replayed = await run(
      ['formalize', restaurantInstruction, '--states', states, '--model', `replay:${recording}`],
      { env: {} },
    );
    expect(replayed.stderr).toBe('');
    expect(replayed.code).toBe(0);
    expect(replayed.stdout).toBe(recorded.stdout);
    expect(server.requests.length).toBe(requests);

    const other = await run(
      ['formalize', 'Book a table.', '--states', states, '--model', `replay:${recording}`],
      { env: {} },
    );
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('is of another instruction');
    const shifted = await run(
      [
        'formalize',
        restaurantInstruction,
        '--states',
        states,
        '--model',
        `replay:${recording}`,
        '--now',
        '2025-03-15T12:00',
      ],
      { env: {} },
    );
    expect(shifted.code).toBe(2);
    expect(shifted.stderr).toContain(
      'a replay needs the same instruction, schema, options, --now and --time-zone',
    );
  });

  it('remembers specs with --memory, records outcomes, and primes later prompts with successes', async () => {
    const database = join(directory, 'memory.db');
    server.script('encode', fenced(restaurantSpec), fenced(restaurantSpec));
    server.script('check', agree, agree);
    const first = await run(formalizeArgs('--memory', database), { env: testEnv });
    expect(first.code).toBe(0);
    expect(first.stderr).toContain(
      `Remembered as entry 1; once the task is done, record how it went: intentguard memory record 1 success|failure --memory ${database}`,
    );

    // Pending entries do not prime prompts.
    const second = await run(formalizeArgs('--memory', database, '--json'), { env: testEnv });
    expect(JSON.parse(second.stdout)).toMatchObject({
      memory: { entry: 2, outcome: 'pending' },
      prompt: { experiences: [] },
    });

    const recorded = await run([
      'memory',
      'record',
      '1',
      'success',
      '--memory',
      database,
      '--note',
      'booked at 18:30',
    ]);
    expect(recorded).toMatchObject({ code: 0, stdout: 'entry 1: success\n' });
    expect((await run(['memory', 'record', '9', 'success', '--memory', database])).code).toBe(2);
    expect((await run(['memory', 'record', '1', 'great', '--memory', database])).code).toBe(2);

    server.script('encode', fenced(restaurantSpec));
    server.script('check', agree);
    const third = await run(formalizeArgs('--memory', database, '--json'), { env: testEnv });
    expect(JSON.parse(third.stdout).prompt.experiences).toEqual([1]);
    expect(server.of('encode')[2]?.messages[0]?.content).toContain(
      'Specs that worked for similar instructions on this schema:',
    );

    const listed = await run([
      'memory',
      'list',
      '--memory',
      database,
      '--outcome',
      'success',
      '--json',
    ]);
    expect(JSON.parse(listed.stdout)).toMatchObject([
      { id: 1, outcome: 'success', note: 'booked at 18:30', schemaId: 'states' },
    ]);
    const searched = await run([
      'memory',
      'search',
      'reserve restaurant R tonight',
      '--memory',
      database,
    ]);
    expect(searched.stdout.split('\n')[0]).toMatch(/^3\tpending\tstates\tReserve restaurant R/);
  });

  it('recalls remembered specs by embedding similarity with --memory-embeddings', async () => {
    const database = join(directory, 'memory.db');
    server.script('encode', fenced(restaurantSpec), fenced(restaurantSpec));
    server.script('check', agree, agree);
    expect((await run(formalizeArgs('--memory', database), { env: testEnv })).code).toBe(0);
    expect((await run(['memory', 'record', '1', 'success', '--memory', database])).code).toBe(0);
    // A request sharing no word with the remembered one; the fake model embeds both alike.
    server.embed = (text) => (/reserve|book|table/i.test(text) ? [1, 0] : [0, 1]);
    const result = await run(
      [
        'formalize',
        'Book me a table tonight',
        '--states',
        states,
        ...model(),
        '--now',
        '2025-03-14T12:00',
        '--memory',
        database,
        '--memory-embeddings',
        'openai:text-embedding-3-small',
        // The scripted reply is the remembered restaurant spec, whose "R" and 7 PM this
        // request does not give: recall is what is tested here.
        '--no-grounding-check',
        '--json',
      ],
      { env: testEnv },
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).prompt.experiences).toEqual([1]);
    expect(server.requests.some((request) => request.path.endsWith('/embeddings'))).toBe(true);
    // Without embeddings, no shared word and no shared stem: nothing is recalled.
    server.script('encode', fenced(restaurantSpec));
    server.script('check', agree);
    const lexical = await run(
      [
        'formalize',
        'Book me a table tonight',
        '--states',
        states,
        ...model(),
        '--now',
        '2025-03-14T12:00',
        '--memory',
        database,
        '--no-grounding-check',
        '--json',
      ],
      { env: testEnv },
    );
    expect(lexical.code).toBe(0);
    expect(JSON.parse(lexical.stdout).prompt.experiences).toEqual([]);
    const bad = await run(formalizeArgs('--memory-embeddings', 'nonsense'), { env: testEnv });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--memory-embeddings');
  });

  it('adds hand-written specs to memory only when they check', async () => {
    const database = join(directory, 'memory.db');
    const spec = join(directory, 'spec.intent');
    const bad = join(directory, 'bad.intent');
    const files = { [spec]: restaurantSpec, [bad]: misspelled };
    const added = await run(
      [
        'memory',
        'add',
        spec,
        '--instruction',
        restaurantInstruction,
        '--states',
        states,
        '--memory',
        database,
        '--json',
      ],
      { files },
    );
    expect(added.code).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({
      id: 1,
      outcome: 'success',
      schemaId: 'states',
      spec: `${canonical}\n`,
    });
    const rejected = await run(
      [
        'memory',
        'add',
        bad,
        '--instruction',
        restaurantInstruction,
        '--states',
        states,
        '--memory',
        database,
      ],
      { files },
    );
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toContain('unknown-predicate');
    expect(
      JSON.parse((await run(['memory', 'list', '--memory', database, '--json'])).stdout),
    ).toHaveLength(1);
  });

  it('exits 2 when the memory file cannot be opened', async () => {
    const result = await run([
      'memory',
      'list',
      '--memory',
      join(directory, 'missing', 'dir', 'memory.db'),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--memory: cannot open');
  });
});
