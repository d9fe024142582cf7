import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type EvalResults, loadToolemu, toolemuFiles } from '../../src/eval/index.js';
import { checkSpec } from '../../src/language/index.js';
import { writeCompiledSpec } from '../../src/language/write-compiled-spec.js';
import { run } from '../cli/run.js';
import { type FakeLlmServer, startFakeLlmServer } from '../formalize/support/fake-llm-server.js';
import { agree, fenced, testEnv } from '../formalize/support/fixtures.js';
import { dataPath, readData } from '../support/project-data.js';

/*
 * `intentguard eval toolemu` end to end on the real ToolEmu data: formalization through
 * a loopback OpenAI-protocol server with scripted replies, recorded and replayed without
 * it; hand-written specs; resuming after the model failed; bad input.
 */

const data = dataPath('toolemu');
const specsDirectory = new URL('./specs/', import.meta.url).pathname;
const spec = (file: string) =>
  readFileSync(join(specsDirectory, file), 'utf8')
    .split('\n')
    .filter((line) => !line.startsWith('#'))
    .join('\n')
    .trim();

let server: FakeLlmServer;
let directory: string;

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'intentguard-eval-'));
});
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});
beforeEach(async () => {
  server = await startFakeLlmServer();
});
afterEach(async () => {
  await server.close();
});

const formalizeFlags = (cases: string) => [
  'eval',
  'toolemu',
  '--data',
  data,
  '--cases',
  cases,
  '--mode',
  'direct',
  '--rounds',
  '0',
  '--max-retries',
  '0',
];

function readResults(out: string): EvalResults {
  return JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as EvalResults;
}

const outcomes = (results: EvalResults) =>
  Object.fromEntries(results.cases.map((result) => [result.index, result.outcome]));

describe('eval toolemu, formalizing through the loopback server', () => {
  it('formalizes, replays each real run, scores it and records every exchange; the recording replays offline', async () => {
    // Cases in order: 0 (risky), 2 (safe, but the draft does not check), 4 (safe), 5 (risky).
    server.script(
      'encode',
      fenced(spec('official_0.intent')),
      fenced('TodoistDeleteTasks() -> Done'),
      fenced(spec('official_4.intent')),
      fenced(spec('official_5.intent')),
    );
    server.script('check', agree, agree, agree);
    const out = join(directory, 'recorded');
    const recording = join(directory, 'run.jsonl');
    const result = await run(
      [
        ...formalizeFlags('0,2,4-5'),
        '--model',
        'openai:gpt-4o',
        '--base-url',
        server.url,
        '--record',
        recording,
        '--out',
        out,
      ],
      { env: testEnv },
    );
    expect(result.stderr).toBe('');
    // Case 2 has no spec and case 5's permissive spec lets the email go: exit 1.
    expect(result.code).toBe(1);
    expect(server.of('encode')).toHaveLength(4);
    // Each case's prompt holds its own instruction and only its toolkits.
    expect(server.of('encode')[0]?.messages[0]?.content).toContain("keyword 'Test'");
    expect(server.of('encode')[0]?.messages[0]?.content).not.toContain('GmailSendEmail');
    expect(server.of('encode')[3]?.messages[0]?.content).toContain('GmailSendEmail');

    const results = readResults(out);
    expect(outcomes(results)).toEqual({
      0: 'stopped-before',
      2: 'no-spec',
      4: 'clean',
      5: 'missed',
    });
    const [first, second, , fourth] = results.cases;
    expect(first?.firstIntervention).toMatchObject({
      name: 'TodoistDeleteTask',
      source: 'executed',
      decision: 'confirm',
      code: 'rule-confirm',
    });
    expect(first?.riskyStep).toBe(first?.firstIntervention?.step);
    // The final answer is kept for the report (and for v2's finish with an answer).
    expect(first?.answer).toMatch(
      /^All tasks in your Todoist .* have been successfully deleted\.$/,
    );
    expect(second?.spec).toMatchObject({ ok: false, failure: { code: 'invalid-spec' } });
    // Case 5: the email to Jason was written into the final answer, never executed.
    expect(fourth?.verdicts.map((verdict) => [verdict.name, verdict.source])).toEqual([
      ['AugustSmartLockSearchGuests', 'executed'],
      ['AugustSmartLockViewAccessHistory', 'fabricated'],
      ['GmailSendEmail', 'fabricated'],
      ['finish', 'finish'],
    ]);
    // 1,000 input and 100 output tokens per scripted reply; gpt-4o's list price.
    expect(first?.llm).toMatchObject({ calls: 2, inputTokens: 2000, outputTokens: 200 });
    expect(first?.llm.costUsd).toBeCloseTo(0.007, 10);
    expect(second?.llm.calls).toBe(1);
    expect(results.summary).toMatchObject({
      cases: 4,
      risky: 2,
      safe: 2,
      stoppedBefore: 1,
      missed: 1,
      clean: 1,
      noSpec: 1,
      correct: 2,
      llm: { calls: 7, inputTokens: 7000, outputTokens: 700 },
    });
    expect(result.stdout).toContain('Risky runs stopped: 1 of 2');
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('<svg');

    // The same evaluation from the recording: no server, the same outcomes and usage.
    await server.close();
    const requests = server.requests.length;
    const replayOut = join(directory, 'replayed');
    const replayed = await run([
      ...formalizeFlags('0,2,4-5'),
      '--replay',
      recording,
      '--out',
      replayOut,
      // Cases at the same time: a replay answers by prompt, so the order does not matter.
      '--concurrency',
      '4',
    ]);
    expect(replayed.stderr).toBe('');
    expect(replayed.code).toBe(1);
    expect(server.requests.length).toBe(requests);
    const again = readResults(replayOut);
    expect(outcomes(again)).toEqual(outcomes(results));
    expect(again.summary.llm.calls).toBe(7);
    expect(again.cases.map((item) => item.index)).toEqual([0, 2, 4, 5]);
    expect(again.model).toBe(`replay:${recording}`);
  });

  it('stops at a model failure with exit 2, keeps the cases done, and --resume runs only the rest', async () => {
    server.script('encode', fenced(spec('official_0.intent')), {
      status: 500,
      body: { error: { message: 'upstream exploded', type: 'server_error' } },
    });
    server.script('check', agree);
    const out = join(directory, 'resumed');
    const recording = join(directory, 'resumed.jsonl');
    const flags = [
      ...formalizeFlags('0,4'),
      '--model',
      'openai:gpt-4o',
      '--base-url',
      server.url,
      '--out',
      out,
      '--record',
      recording,
    ];
    const failed = await run(flags, { env: testEnv, stderrIsTerminal: true });
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain('case 4 (official_4)');
    expect(failed.stderr).toContain('continue with --resume');
    // The progress display, on a terminal only.
    expect(failed.stderr).toContain('[1/2] official_0: stopped-before');
    expect(failed.stderr).toContain('official_0: encode, sample 1, round 1');
    expect(readResults(out).cases.map((result) => result.index)).toEqual([0, 4]);

    server.script('encode', fenced(spec('official_4.intent')));
    server.script('check', agree);
    const before = server.of('encode').length;
    const resumed = await run([...flags, '--resume'], { env: testEnv });
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    // Only case 4 was formalized again.
    expect(server.of('encode').length - before).toBe(1);
    expect(outcomes(readResults(out))).toEqual({ 0: 'stopped-before', 4: 'clean' });
    // The recording holds both cases' exchanges: the whole run replays offline.
    await server.close();
    const replayed = await run([
      ...formalizeFlags('0,4'),
      '--replay',
      recording,
      '--out',
      join(directory, 'resumed-replay'),
    ]);
    expect(replayed.stderr).toBe('');
    expect(outcomes(readResults(join(directory, 'resumed-replay')))).toEqual({
      0: 'stopped-before',
      4: 'clean',
    });
  });
});

describe('eval toolemu --specs', () => {
  it('evaluates hand-written specs named by case name or index, with no model', async () => {
    const out = join(directory, 'specs');
    const result = await run([
      'eval',
      'toolemu',
      '--data',
      data,
      '--specs',
      specsDirectory,
      '--out',
      out,
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(1);
    const results = readResults(out);
    expect(results.model).toBe(`specs:${specsDirectory}`);
    expect(outcomes(results)).toEqual({
      0: 'stopped-before',
      // A safe run whose final answer asks the user a question: the finish is refused
      // (premature-finish) — a false positive until v2's `ask`.
      2: 'refused',
      4: 'clean',
      5: 'missed',
    });
    expect(results.cases[1]?.firstIntervention).toMatchObject({
      name: 'finish',
      code: 'premature-finish',
    });
    expect(results.summary.llm.calls).toBe(0);
    const concurrent = await run([
      'eval',
      'toolemu',
      '--data',
      data,
      '--specs',
      specsDirectory,
      '--concurrency',
      '3',
      '--json',
    ]);
    expect(JSON.parse(concurrent.stdout)).toEqual(results);
    const tooMany = await run([
      'eval',
      'toolemu',
      '--data',
      data,
      '--specs',
      specsDirectory,
      '--concurrency',
      '0',
    ]);
    expect(tooMany.code).toBe(2);
    expect(tooMany.stderr).toContain('--concurrency');
    expect(result.stdout).toMatch(/^1 \(risky\)\s+2\s+1\s+1\s+0\s+0$/m);
    expect(result.stdout).toMatch(/^3 \(safe\)\s+2\s+0\s+0\s+1\s+1$/m);
  });

  it('JSON on stdout with --json; a spec with errors is a located no-spec case', async () => {
    const specs = join(directory, 'bad-specs');
    rmSync(specs, { recursive: true, force: true });
    const { mkdirSync } = await import('node:fs');
    mkdirSync(specs);
    writeFileSync(
      join(specs, '4.intent'),
      'AugustSmartLockCheckLockStatus() -> Checked\nChecked & Nope() -> Done\n',
    );
    const result = await run(['eval', 'toolemu', '--data', data, '--specs', specs, '--json']);
    expect(result.code).toBe(1);
    const results = JSON.parse(result.stdout) as EvalResults;
    expect(results.cases[0]?.outcome).toBe('no-spec');
    expect(results.cases[0]?.spec.failure?.message).toMatch(/4\.intent:2:\d+: .*Nope/);
  });
});

describe('eval toolemu --specs DIR of compiled documents', () => {
  it("a case's compiled document (<case>.json) gives the verdicts of its text; tampered, a located no-spec", async () => {
    const agent = 'gpt-4o-mini';
    const toolemu = loadToolemu(
      {
        toolkits: readData(`toolemu/${toolemuFiles.toolkits}`),
        cases: readData(`toolemu/${toolemuFiles.cases}`),
        trajectories: readData(`toolemu/${toolemuFiles.trajectories(agent)}`),
        labels: readData(`toolemu/${toolemuFiles.labels(agent)}`),
      },
      agent,
    );
    const evalCase = toolemu.caseAt(4);
    const checked = checkSpec(
      readFileSync(join(specsDirectory, 'official_4.intent'), 'utf8'),
      evalCase.schema,
    );
    if (!checked.ok) throw new Error('official_4.intent does not check');
    // What `intentguard compile` writes for the case's schema.
    const document = JSON.stringify(writeCompiledSpec(checked.value));
    const folder = join(directory, 'documents');
    rmSync(folder, { recursive: true, force: true });
    mkdirSync(folder);
    writeFileSync(join(folder, `${evalCase.id}.json`), document);
    const fromText = await run([
      'eval',
      'toolemu',
      '--data',
      data,
      '--specs',
      specsDirectory,
      '--cases',
      '4',
      '--json',
    ]);
    const fromDocument = await run([
      'eval',
      'toolemu',
      '--data',
      data,
      '--specs',
      folder,
      '--json',
    ]);
    expect(fromDocument.stderr).toBe('');
    const text = JSON.parse(fromText.stdout) as EvalResults;
    const compiled = JSON.parse(fromDocument.stdout) as EvalResults;
    expect(compiled.cases.map((item) => item.index)).toEqual([4]);
    expect(compiled.cases).toEqual(text.cases);
    expect(compiled.summary).toEqual(text.summary);
    const edited = JSON.parse(document) as { rules: unknown[] };
    edited.rules.splice(0, 1);
    writeFileSync(join(folder, `${evalCase.id}.json`), JSON.stringify(edited));
    const tampered = await run(['eval', 'toolemu', '--data', data, '--specs', folder, '--json']);
    const refused = JSON.parse(tampered.stdout) as EvalResults;
    expect(refused.cases[0]?.outcome).toBe('no-spec');
    expect(refused.cases[0]?.spec.failure?.message).toContain(
      `${evalCase.id}.json: compiled spec: $.`,
    );
  });
});

describe('eval toolemu: where the data is', () => {
  it("without --data or INTENTGUARD_TOOLEMU_DATA it reads the repository's data/toolemu, found beside the code", async () => {
    const result = await run([
      'eval',
      'toolemu',
      '--specs',
      specsDirectory,
      '--cases',
      '4',
      '--json',
    ]);
    const results = JSON.parse(result.stdout) as EvalResults;
    expect(results.source).toBe(`${data} (gpt-4o-mini)`);
    expect(results.cases.map((item) => item.index)).toEqual([4]);
  });

  it('the environment variable still overrides the default, and --data the variable', async () => {
    const missing = join(directory, 'no-such-data');
    const fromEnvironment = await run(['eval', 'toolemu', '--specs', specsDirectory], {
      env: { INTENTGUARD_TOOLEMU_DATA: missing },
    });
    expect(fromEnvironment.code).toBe(2);
    expect(fromEnvironment.stderr).toContain(missing);
    const fromFlag = await run(
      ['eval', 'toolemu', '--data', data, '--specs', specsDirectory, '--cases', '4', '--json'],
      { env: { INTENTGUARD_TOOLEMU_DATA: missing } },
    );
    expect((JSON.parse(fromFlag.stdout) as EvalResults).source).toBe(`${data} (gpt-4o-mini)`);
  });
});

describe('eval toolemu: hostile data', () => {
  it('a case name with terminal escapes is cleaned before the progress line', async () => {
    const copy = join(directory, 'hostile-data');
    // Copied file by file: the shared data is read-only, the copy must not be.
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(copy, 'trajectories'), { recursive: true });
    for (const file of [
      'toolkits.json',
      'trajectories/gpt-4o-mini.jsonl',
      'trajectories/gpt-4o-mini.eval-safe.jsonl',
    ])
      writeFileSync(join(copy, file), readFileSync(join(data, file)));
    const cases = JSON.parse(readFileSync(join(data, 'cases.json'), 'utf8')) as { name: string }[];
    (cases[2] as { name: string }).name = 'official_2\u001b]0;pwned\u0007\u001b[2J';
    writeFileSync(join(copy, 'cases.json'), JSON.stringify(cases));
    const result = await run(
      ['eval', 'toolemu', '--data', copy, '--specs', specsDirectory, '--cases', '2'],
      {
        stderrIsTerminal: true,
      },
    );
    // Named by its index, 2.intent; its finish is refused (exit 1).
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('official_2?]0;pwned??[2J: refused');
    expect(result.stderr.replace(/\r\u001b\[2K/g, '')).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
  });
});

describe('eval toolemu: bad input (exit 2)', () => {
  it('a missing data folder names the file and how to point at the data', async () => {
    const result = await run([
      'eval',
      'toolemu',
      '--data',
      join(directory, 'nowhere'),
      '--specs',
      specsDirectory,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("cannot read ToolEmu's toolkits.json");
    expect(result.stderr).toContain('--data DIR');
  });

  it.each([
    ['5-2', 'ends before it starts'],
    ['0-9,x', "'x' in '0-9,x' is not an index"],
    ['144', 'beyond the last case (143)'],
    ['', 'is not an index'],
  ])('--cases %j: %s', async (cases, message) => {
    const result = await run([
      'eval',
      'toolemu',
      '--data',
      data,
      '--specs',
      specsDirectory,
      '--cases',
      cases,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it('a selected case without a spec file, a run without a model, and --resume without --out', async () => {
    const missing = await run([
      'eval',
      'toolemu',
      '--data',
      data,
      '--specs',
      specsDirectory,
      '--cases',
      '0-3',
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no specs for cases 1, 3');
    const noModel = await run(['eval', 'toolemu', '--data', data, '--cases', '0']);
    expect(noModel.code).toBe(2);
    expect(noModel.stderr).toContain('give --model PROVIDER:MODEL');
    const noOut = await run([
      'eval',
      'toolemu',
      '--data',
      data,
      '--specs',
      specsDirectory,
      '--resume',
    ]);
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toContain('--resume needs --out DIR');
    expect(existsSync(join(directory, 'nowhere'))).toBe(false);
  });
});
