import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvalResults } from '../../src/eval/index.js';
import { run } from '../cli/run.js';

/*
 * `intentguard eval taubench --specs DIR` where DIR holds what `intentguard compile`
 * writes: every shipped intent compiled alone and with the airline policy gives exactly
 * the figures, verdicts and scores of the texts.
 */

const examples = new URL('../../examples/taubench/', import.meta.url).pathname;
const intents = join(examples, 'intents');
const policyPath = join(examples, 'airline.policy');
const schema = [
  '--tools',
  join(examples, 'airline-tools.json'),
  '--states',
  join(examples, 'airline-states.json'),
];
const taskFiles = readdirSync(intents).filter((name) => /^task-\d+\.intent$/.test(name));

let directory: string;
const alone = () => join(directory, 'alone');
const composed = () => join(directory, 'composed');

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'intentguard-taubench-compiled-'));
  mkdirSync(alone());
  mkdirSync(composed());
  for (const name of taskFiles) {
    const json = name.replace(/\.intent$/, '.json');
    const intent = join(intents, name);
    const one = await run(['compile', intent, ...schema, '-o', join(alone(), json)]);
    const both = await run([
      'compile',
      intent,
      ...schema,
      '--policy',
      policyPath,
      '-o',
      join(composed(), json),
    ]);
    expect([one.code, both.code]).toEqual([0, 0]);
  }
}, 120_000);
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

async function evaluated(args: readonly string[]): Promise<EvalResults> {
  const result = await run(['eval', 'taubench', ...args, '--json']);
  expect(result.stderr).toBe('');
  expect([0, 1]).toContain(result.code);
  return JSON.parse(result.stdout) as EvalResults;
}

/** What an evaluation found (every case, its verdicts and spec text): all but the header. */
const figures = ({ summary, taubench, cases }: EvalResults) => ({ summary, taubench, cases });

describe('eval taubench --specs DIR of compiled documents', () => {
  it('ships intents to compile', () => {
    expect(taskFiles.length).toBeGreaterThanOrEqual(10);
  });

  it('documents of the intents alone: the figures of the texts', async () => {
    const texts = await evaluated(['--specs', intents]);
    const documents = await evaluated(['--specs', alone()]);
    expect(documents.taubench?.configuration).toBe('intent only');
    expect(documents.cases.length).toBe(taskFiles.length * 4);
    expect(documents.cases.every((item) => item.spec.ok)).toBe(true);
    expect(figures(documents)).toEqual(figures(texts));
  }, 120_000);

  it('documents composed with the policy: the figures of the texts with --policy', async () => {
    const texts = await evaluated(['--specs', intents, '--policy', policyPath]);
    const documents = await evaluated(['--specs', composed()]);
    expect(documents.taubench?.configuration).toBe('composed');
    expect(figures(documents)).toEqual(figures(texts));
    // The policy judges: composed, more unsafe runs are stopped than by the intents alone.
    const intentOnly = await evaluated(['--specs', alone(), '--tasks', '0-9']);
    const withPolicy = await evaluated([
      '--specs',
      alone(),
      '--tasks',
      '0-9',
      '--policy',
      policyPath,
    ]);
    const textsWithPolicy = await evaluated([
      '--specs',
      intents,
      '--tasks',
      '0-9',
      '--policy',
      policyPath,
    ]);
    expect(figures(withPolicy)).toEqual(figures(textsWithPolicy));
    expect(withPolicy.taubench?.unsafe.stopped).toBeGreaterThan(
      intentOnly.taubench?.unsafe.stopped ?? 0,
    );
  }, 180_000);

  it('a tampered document makes its task no-spec, located at the JSONPath; the others run', async () => {
    const folder = join(directory, 'tampered');
    mkdirSync(folder);
    const document = JSON.parse(readFileSync(join(composed(), 'task-3.json'), 'utf8')) as {
      policy: { guards: unknown[] };
    };
    // The operator's first guard (a booking needs the user's yes) dropped from the shipped
    // document: refused, never run as edited.
    document.policy.guards.splice(0, 1);
    writeFileSync(join(folder, 'task-3.json'), JSON.stringify(document));
    writeFileSync(
      join(folder, 'task-4.json'),
      readFileSync(join(composed(), 'task-4.json'), 'utf8'),
    );
    const result = await run(['eval', 'taubench', '--specs', folder, '--json']);
    expect(result.code).toBe(1);
    const results = JSON.parse(result.stdout) as EvalResults;
    const task3 = results.cases.filter((item) => item.id.startsWith('task-3-'));
    expect(task3.length).toBe(4);
    for (const item of task3) {
      expect(item.outcome).toBe('no-spec');
      expect(item.spec.failure?.message).toContain(
        `${join(folder, 'task-3.json')}: compiled spec: $.policy`,
      );
    }
    expect(
      results.cases.filter((item) => item.id.startsWith('task-4-')).every((item) => item.spec.ok),
    ).toBe(true);
  });

  it('usage errors (exit 2): a composition with --policy, documents mixed with and without one, a task twice', async () => {
    const second = await run([
      'eval',
      'taubench',
      '--specs',
      composed(),
      '--tasks',
      '3',
      '--policy',
      policyPath,
    ]);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(
      `${join(composed(), 'task-3.json')} composes its own policy; --policy`,
    );
    const mixed = join(directory, 'mixed');
    mkdirSync(mixed);
    writeFileSync(join(mixed, 'task-3.json'), readFileSync(join(composed(), 'task-3.json')));
    writeFileSync(join(mixed, 'task-4.intent'), readFileSync(join(intents, 'task-4.intent')));
    const mix = await run(['eval', 'taubench', '--specs', mixed]);
    expect(mix.code).toBe(2);
    expect(mix.stderr).toContain('composes a policy and');
    expect(mix.stderr).toContain('task-4.intent does not');
    writeFileSync(join(mixed, 'task-3.intent'), readFileSync(join(intents, 'task-3.intent')));
    const twice = await run(['eval', 'taubench', '--specs', mixed]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('holds both task-3.intent and task-3.json');
  });

  it('a .json file that is not a compiled document is a located no-spec case', async () => {
    const folder = join(directory, 'not-documents');
    mkdirSync(folder);
    writeFileSync(join(folder, 'task-3.json'), '{"rules": []}');
    const result = await run(['eval', 'taubench', '--specs', folder, '--json']);
    expect(result.code).toBe(1);
    const results = JSON.parse(result.stdout) as EvalResults;
    expect(results.cases.every((item) => item.outcome === 'no-spec')).toBe(true);
    expect(results.cases[0]?.spec.failure?.message).toContain('$.format: not a compiled spec');
  });
});
