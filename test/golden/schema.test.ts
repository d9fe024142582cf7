import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diagnosticCodes } from '../../src/language/diagnostics/catalog.js';
import { renderDiagnostics } from '../../src/language/diagnostics/render.js';
import { loadStateSchema, loadToolSchema } from '../../src/schema/index.js';

/**
 * Golden diagnostics of schema files: each folder `schema/<code>/` holds `input.json`,
 * `kind.txt` (`states` or `tools`) and `expected.txt`, the rendered diagnostics.
 * `UPDATE_GOLDEN=1` rewrites expected.txt.
 */
const root = join(import.meta.dirname, 'schema');
const update = process.env.UPDATE_GOLDEN === '1';
const folders = readdirSync(root, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

const loaders = { states: loadStateSchema, tools: loadToolSchema } as const;

describe.each(folders)('%s', (code) => {
  const folder = join(root, code);

  it('renders the expected diagnostics, among them its own code', () => {
    const kind = readFileSync(join(folder, 'kind.txt'), 'utf8').trim();
    if (kind !== 'states' && kind !== 'tools') {
      throw new Error(`kind.txt of ${code} must be states or tools, not '${kind}'`);
    }
    const input = readFileSync(join(folder, 'input.json'), 'utf8');
    const { diagnostics } = loaders[kind](input);
    const rendered = `${renderDiagnostics(diagnostics, undefined, { fileName: 'input.json' })}\n`;
    const expectedPath = join(folder, 'expected.txt');
    if (update) writeFileSync(expectedPath, rendered);
    if (!existsSync(expectedPath)) {
      throw new Error(`${expectedPath} is missing; run with UPDATE_GOLDEN=1 to write it`);
    }
    expect(rendered).toBe(readFileSync(expectedPath, 'utf8'));
    expect(diagnostics.map((diagnostic) => diagnostic.code)).toContain(code);
  });
});

describe('coverage', () => {
  it('has a golden folder for every diagnostic code of schema files', () => {
    const missing = diagnosticCodes.filter(
      (code) => code.startsWith('schema-') && !folders.includes(code),
    );
    expect(missing, `codes without a folder under ${root}`).toEqual([]);
  });

  it('has no folder for a code that is not a schema code of the catalog', () => {
    const known = new Set<string>(diagnosticCodes.filter((code) => code.startsWith('schema-')));
    expect(folders.filter((folder) => !known.has(folder))).toEqual([]);
  });
});
