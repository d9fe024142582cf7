import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeSpec } from '../../src/language/analyze.js';
import { analyzeComposition, checkPolicy } from '../../src/language/checker/composition.js';
import type { GroundingSources } from '../../src/language/checker/grounding.js';
import { diagnosticCodes } from '../../src/language/diagnostics/catalog.js';
import { renderDiagnostics } from '../../src/language/diagnostics/render.js';
import type { ParseOptions } from '../../src/language/parser.js';
import type { Schema } from '../../src/language/schema-model.js';
import { parseDate } from '../../src/language/temporal.js';
import { loadStateSchema } from '../../src/schema/index.js';

/**
 * Golden diagnostics: each folder `diagnostics/<code>/` holds `input.intent`, optionally
 * `states.json` (a schema to check against), `options.json` (`{"limits": {...}}`) and
 * `grounding.json` (`{"instruction": "…", "today": "YYYY-MM-DD"}`: the grounding check's
 * sources), and `expected.txt`, the rendered diagnostics. `UPDATE_GOLDEN=1` rewrites expected.txt.
 * Codes of schema files (`schema-*`) have their own harness in `schema.test.ts`.
 */
const root = join(import.meta.dirname, 'diagnostics');
const update = process.env.UPDATE_GOLDEN === '1';
const folders = readdirSync(root, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

function readOptional(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

function loadSchema(folder: string): Schema | undefined {
  const states = readOptional(join(folder, 'states.json'));
  if (states === undefined) return undefined;
  const loaded = loadStateSchema(states, { id: 'states.json' });
  if (!loaded.ok) {
    const rendered = renderDiagnostics(loaded.diagnostics, undefined, { fileName: 'states.json' });
    throw new Error(`states.json of ${folder} does not load:\n${rendered}`);
  }
  return loaded.value;
}

function loadGrounding(folder: string): GroundingSources | undefined {
  const text = readOptional(join(folder, 'grounding.json'));
  if (text === undefined) return undefined;
  const { instruction, today } = JSON.parse(text) as { instruction: string; today?: string };
  const day = today === undefined ? undefined : parseDate(today);
  return { instruction, ...(day !== undefined ? { today: day } : {}) };
}

/**
 * A folder with `input.policy` checks a policy (LANGUAGE.md §8): alone, or with
 * `input.intent` as a composition (`analyzeComposition`), each file's diagnostics rendered
 * under its own name, the intent's first.
 */
function analyzeFolder(folder: string): { rendered: string; codes: string[] } {
  const options = JSON.parse(readOptional(join(folder, 'options.json')) ?? '{}') as ParseOptions;
  const intentSource = readOptional(join(folder, 'input.intent'));
  const policySource = readOptional(join(folder, 'input.policy'));
  const schema = loadSchema(folder);
  if (policySource === undefined || schema === undefined) {
    const source = intentSource ?? '';
    const diagnostics = analyzeSpec(source, schema, options, loadGrounding(folder));
    return {
      rendered: `${renderDiagnostics(diagnostics, source, { fileName: 'input.intent' })}\n`,
      codes: diagnostics.map((diagnostic) => diagnostic.code),
    };
  }
  if (intentSource === undefined) {
    const checked = checkPolicy(policySource, schema, options);
    return {
      rendered: `${renderDiagnostics(checked.diagnostics, policySource, { fileName: 'input.policy' })}\n`,
      codes: checked.diagnostics.map((diagnostic) => diagnostic.code),
    };
  }
  const { intent, policy } = analyzeComposition(intentSource, policySource, schema, options);
  const parts = [
    renderDiagnostics(intent, intentSource, { fileName: 'input.intent' }),
    renderDiagnostics(policy, policySource, { fileName: 'input.policy' }),
  ].filter((part) => part !== '');
  return {
    rendered: `${parts.join('\n')}\n`,
    codes: [...intent, ...policy].map((diagnostic) => diagnostic.code),
  };
}

describe.each(folders)('%s', (code) => {
  const folder = join(root, code);

  it('renders the expected diagnostics, among them its own code', () => {
    const { rendered, codes } = analyzeFolder(folder);
    const expectedPath = join(folder, 'expected.txt');
    if (update) writeFileSync(expectedPath, rendered);
    const expected = readOptional(expectedPath);
    if (expected === undefined) {
      throw new Error(`${expectedPath} is missing; run with UPDATE_GOLDEN=1 to write it`);
    }
    expect(rendered).toBe(expected);
    expect(codes).toContain(code);
  });
});

describe('coverage', () => {
  it('has a golden folder for every diagnostic code of specs', () => {
    const missing = diagnosticCodes.filter(
      (code) => !code.startsWith('schema-') && !folders.includes(code),
    );
    expect(missing, `codes without a folder under ${root}`).toEqual([]);
  });

  it('has no folder for a code the catalog does not know', () => {
    const known = new Set<string>(diagnosticCodes);
    expect(folders.filter((folder) => !known.has(folder))).toEqual([]);
  });
});
