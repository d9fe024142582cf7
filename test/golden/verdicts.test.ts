import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../cli/run.js';
import { fixedNow, sharedRoot } from '../engine/fixtures.js';
import { readData } from '../support/project-data.js';

/**
 * Golden verdicts: every worked example, the project's examples and the ToolEmu cases,
 * replayed through the CLI (`intentguard replay`, one verdict JSON line per event) and
 * compiled (`intentguard compile`), compared byte for byte with `verdicts/<case>.txt`.
 * The whole JSON of every verdict is pinned — decision, reasons, feedback, roadmap — so a
 * change of the code's shape that changes what any of them says shows here.
 * `UPDATE_GOLDEN=1` rewrites the files (review the diff: it is a behaviour change).
 */
const root = join(import.meta.dirname, 'verdicts');
const update = process.env.UPDATE_GOLDEN === '1';
const project = new URL('../../', import.meta.url);
const projectPath = (path: string) => new URL(path, project).pathname;
const sharedPath = (path: string) => new URL(path, sharedRoot).pathname;

interface GoldenCase {
  readonly name: string;
  readonly spec: string;
  /** `--states` or `--tools`, and the file. */
  readonly schema: readonly [flag: '--states' | '--tools', path: string];
  readonly traces: readonly string[];
  readonly now: string;
  /** In-memory files the CLI reads (a ToolEmu case's toolkits). */
  readonly files?: Readonly<Record<string, string>>;
}

const jsonlIn = (folder: string) =>
  readdirSync(folder)
    .filter((name) => name.endsWith('.jsonl'))
    .sort()
    .map((name) => join(folder, name));

function cases(): GoldenCase[] {
  const all: GoldenCase[] = [];
  const projectSchemas = {
    restaurant: ['--states', 'examples/restaurant/states.json'],
    clock: ['--states', 'examples/clock/states.json'],
    'bank-transfer': ['--tools', 'examples/bank-transfer/tools.json'],
    todoist: ['--tools', 'examples/todoist/toolkits.json'],
    web: ['--states', 'examples/web/states.json'],
  } as const;
  for (const [folder, [flag, path]] of Object.entries(projectSchemas))
    all.push({
      name: `examples-${folder}`,
      spec: projectPath(`examples/${folder}/spec.intent`),
      schema: [flag, projectPath(path)],
      traces: jsonlIn(projectPath(`examples/${folder}/`)),
      now: fixedNow,
    });
  const sharedSchemas = {
    restaurant: ['--states', 'examples/restaurant/states.json'],
    clock: ['--states', 'data/verisafe/predicates/com.google.android.deskclock.json'],
    'bank-transfer': ['--tools', 'examples/bank-transfer/tools.json'],
    todoist: ['--tools', 'data/toolemu/toolkits.json'],
  } as const;
  for (const [folder, [flag, path]] of Object.entries(sharedSchemas))
    all.push({
      name: `shared-${folder}`,
      spec: sharedPath(`examples/${folder}/spec.intent`),
      schema: [flag, sharedPath(path)],
      traces: jsonlIn(sharedPath(`examples/${folder}/`)),
      now: fixedNow,
    });
  const toolkits = JSON.parse(readData('toolemu/toolkits.json')) as { toolkit: string }[];
  const toolemu = projectPath('examples/toolemu/');
  for (const folder of readdirSync(toolemu, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()) {
    const meta = JSON.parse(readFileSync(join(toolemu, folder, 'case.json'), 'utf8')) as {
      toolkits: string[];
    };
    const tools = `/golden/${folder}/toolkits.json`;
    all.push({
      name: `toolemu-${folder}`,
      spec: join(toolemu, folder, 'spec.intent'),
      schema: ['--tools', tools],
      traces: [join(toolemu, folder, 'trace.jsonl')],
      now: '2022-02-22T11:37',
      files: {
        [tools]: JSON.stringify(toolkits.filter((kit) => meta.toolkits.includes(kit.toolkit))),
      },
    });
  }
  return all;
}

/** What the CLI prints for a case: the compiled spec, then each trace's verdict lines. */
async function transcript(golden: GoldenCase): Promise<string> {
  const files = golden.files ?? {};
  const parts: string[] = [];
  const compiled = await run(['compile', golden.spec, ...golden.schema], { files });
  parts.push(`# compile: exit ${compiled.code}\n${compiled.stdout}${compiled.stderr}`);
  for (const trace of golden.traces) {
    const replayed = await run(
      ['replay', golden.spec, ...golden.schema, '--trace', trace, '--now', golden.now],
      { files },
    );
    const name = trace.slice(trace.lastIndexOf('/') + 1);
    parts.push(`# replay ${name}: exit ${replayed.code}\n${replayed.stdout}${replayed.stderr}`);
  }
  return parts.join('\n');
}

const all = cases();

describe('golden verdicts', () => {
  it('covers the examples, the worked examples and the ToolEmu cases', () => {
    expect(all.length).toBeGreaterThanOrEqual(29);
  });

  it.each(all.map((golden) => [golden.name, golden] as const))('%s', async (name, golden) => {
    const text = await transcript(golden);
    const path = join(root, `${name}.txt`);
    if (update) {
      mkdirSync(root, { recursive: true });
      writeFileSync(path, text);
    }
    if (!existsSync(path)) throw new Error(`${path} is missing; run with UPDATE_GOLDEN=1`);
    expect(text).toBe(readFileSync(path, 'utf8'));
  });
});
