import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createGuard } from '../../src/guard/index.js';
import { compiledPathChecks as pathCheck } from '../../src/language/check-compiled-paths.js';
import type { CompiledSpecDocument } from '../../src/language/compiled-spec-format.js';
import { readCompiledSpec } from '../../src/language/read-compiled-spec.js';
import { compileRegex } from '../../src/language/regex.js';
import { examples, fixedNow, restaurantStates } from './examples.js';
import { run } from './run.js';

describe('intentguard compile', () => {
  it.each(examples)('$name: writes a compiled spec that reads back and guards', async (example) => {
    const result = await run(['compile', example.spec, ...example.schemaArgs]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const document = JSON.parse(result.stdout) as CompiledSpecDocument;
    expect(document.format).toBe('intentguard/compiled-spec');
    expect(document.version).toBe(2);
    expect(document.source).toBe(readFileSync(example.spec, 'utf8'));
    const spec = readCompiledSpec(document, { regex: compileRegex, pathCheck });
    expect(spec.rules.length).toBeGreaterThan(0);
    expect(createGuard(document, undefined, { now: fixedNow }).roadmap()).toBe(
      createGuard(spec, undefined, { now: fixedNow }).roadmap(),
    );
  });

  it('-o writes the file and says so on stderr', async () => {
    const [example] = examples;
    const result = await run(['compile', example!.spec, ...example!.schemaArgs, '-o', 'out.json'], {
      files: { 'out.json': '' },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/compiled to out\.json/);
    expect(JSON.parse(result.files.get('out.json') ?? '').format).toBe('intentguard/compiled-spec');
  });

  it('a spec with errors exits 1 with its diagnostics and writes nothing', async () => {
    const result = await run(
      ['compile', 'bad.intent', '--states', restaurantStates, '-o', 'out.json'],
      {
        files: {
          'bad.intent': 'R1: RestaurantInfo(name = 5) -> Reserve\nR2: Reserve -> Done\n',
          'out.json': 'untouched',
        },
      },
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/error\[type-mismatch\]/);
    expect(result.stderr).toMatch(
      /bad\.intent: invalid — 1 error, 0 warnings; nothing was written/,
    );
    expect(result.files.get('out.json')).toBe('untouched');
  });

  it('needs a schema (exit 2)', async () => {
    const [example] = examples;
    const result = await run(['compile', example!.spec]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/a schema is required/);
  });
});
