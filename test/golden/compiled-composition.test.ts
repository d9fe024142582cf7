import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { replayCase } from '../../src/eval/replay.js';
import { compiledPathChecks } from '../../src/language/check-compiled-paths.js';
import { requireCompiledFromSource } from '../../src/language/compiled-source.js';
import { checkPolicy, checkSpec, type Spec } from '../../src/language/index.js';
import { readCompiledComposition } from '../../src/language/read-compiled-composition.js';
import { compileRegex } from '../../src/language/regex.js';
import { writeCompiledSpec } from '../../src/language/write-compiled-spec.js';
import { run } from '../cli/run.js';
import { loadTaubenchExample, taubenchExample } from '../support/taubench-example.js';

/**
 * A composition compiled into one document (`intentguard compile --policy`) decides
 * exactly as its two texts: the verdict JSON of every composed example, byte for byte,
 * from the texts and from the document — examples/policy through the CLI (`replay` of the
 * text with `--policy`, and of the compiled document alone), and every shipped τ-bench
 * intent with the airline policy over all the recorded runs of its task.
 */
const project = new URL('../../', import.meta.url);
const projectPath = (path: string) => new URL(path, project).pathname;

function unwrapped<T>(result: { ok: true; value: T } | { ok: false; diagnostics: unknown }): T {
  if (!result.ok) throw new Error(JSON.stringify(result.diagnostics));
  return result.value;
}

describe('a compiled composition decides as its texts', () => {
  it('examples/policy: replay of the texts with --policy and of the compiled document, byte for byte', async () => {
    const schema = [
      '--tools',
      projectPath('examples/policy/tools.json'),
      '--states',
      projectPath('examples/policy/states.json'),
    ];
    const policy = ['--policy', projectPath('examples/policy/airline.policy')];
    const intent = projectPath('examples/policy/cancel.intent');
    const compiled = await run(['compile', intent, ...schema, ...policy]);
    expect(compiled.code).toBe(0);
    const files = { '/golden/cancel.compiled.json': compiled.stdout };
    const traces = readdirSync(projectPath('examples/policy/')).filter((name) =>
      name.endsWith('.jsonl'),
    );
    expect(traces.length).toBeGreaterThan(0);
    for (const name of traces) {
      const trace = ['--trace', projectPath(`examples/policy/${name}`), '--check'];
      const fromText = await run(['replay', intent, ...schema, ...policy, ...trace]);
      const fromDocument = await run(['replay', '/golden/cancel.compiled.json', ...trace], {
        files,
      });
      expect(fromText.code).toBe(0);
      expect(fromText.stdout).toContain('policy-violation');
      expect(fromDocument.code).toBe(0);
      expect(fromDocument.stdout).toBe(fromText.stdout);
      expect(fromDocument.stderr).toBe(fromText.stderr);
    }
  });

  const example = taubenchExample;
  const { schema, data } = loadTaubenchExample();
  const policy = unwrapped(checkPolicy(example('airline.policy'), schema));
  const intents = readdirSync(projectPath('examples/taubench/intents'))
    .filter((name) => /^task-\d+\.intent$/.test(name))
    .sort();

  it('ships at least 10 τ-bench intents', () => {
    expect(intents.length).toBeGreaterThanOrEqual(10);
  });

  it.each(intents)('examples/taubench/intents/%s with airline.policy', (name) => {
    const intent = unwrapped(checkSpec(example(`intents/${name}`), schema));
    const document: unknown = JSON.parse(JSON.stringify(writeCompiledSpec(intent, policy)));
    const read = readCompiledComposition(document, {
      regex: compileRegex,
      pathCheck: compiledPathChecks,
      schema,
    });
    requireCompiledFromSource(document, read.intent, read.policy);
    expect(read.policy?.role).toBe('policy');
    const task = Number(/\d+/.exec(name)?.[0]);
    const indexes = data.runs.flatMap((each, index) => (each.taskId === task ? [index] : []));
    expect(indexes.length).toBe(4);
    for (const index of indexes) {
      const evalCase = data.caseAt(index);
      const verdicts = (spec: Spec, composed: Spec) =>
        JSON.stringify(replayCase(evalCase, spec, { policy: composed }));
      expect(verdicts(read.intent, read.policy as Spec)).toBe(verdicts(intent, policy));
    }
  });
});
