import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as schemaModule from './index.js';

describe('the schema folder', () => {
  it('exports exactly its public API, with no default export', () => {
    expect(Object.keys(schemaModule).sort()).toEqual([
      'criticalToolVerbs',
      'defaultSchemaLimits',
      'detectToolSchemaFormat',
      'isCriticalByAnnotations',
      'isCriticalByName',
      'isIdentifier',
      'isMcpTool',
      'isOpenAiTool',
      'isToolemuToolkit',
      'loadStateSchema',
      'loadToolSchema',
      'mergeSchemas',
      'readOnlyToolVerbs',
      'resolveSchemaLimits',
      'sanitizeName',
      'schemaFromMcpTools',
      'schemaFromOpenAiTools',
      'schemaFromToolemu',
      'splitNameWords',
      'variablesFromJsonSchema',
      'withToolNames',
    ]);
  });

  it('is runtime-neutral: no Node APIs and no imports from layers above', () => {
    const folder = new URL('./', import.meta.url);
    const sources = readdirSync(folder).filter(
      (file) => file.endsWith('.ts') && !file.endsWith('.test.ts'),
    );
    expect(sources.length).toBeGreaterThan(10);
    for (const file of sources) {
      const text = readFileSync(new URL(file, folder), 'utf8');
      const imports = [...text.matchAll(/from '([^']+)'/g)].map((match) => match[1] ?? '');
      for (const specifier of imports) {
        expect(
          specifier.startsWith('./') ||
            specifier.startsWith('../language/') ||
            specifier.startsWith('../support/'),
          `${file}: ${specifier}`,
        ).toBe(true);
      }
    }
  });

  it('freezes the default limits', () => {
    expect(Object.isFrozen(schemaModule.defaultSchemaLimits)).toBe(true);
    expect(schemaModule.resolveSchemaLimits({ maxTools: 1 })).toMatchObject({
      maxTools: 1,
      maxVariables: 1000,
    });
    expect(Object.isFrozen(schemaModule.resolveSchemaLimits({ maxTools: 1 }))).toBe(true);
  });
});

describe('sanitizeName', () => {
  it('rewrites what the language cannot write and refuses names with nothing to keep', () => {
    expect(schemaModule.sanitizeName('get_weather')).toBe('get_weather');
    expect(schemaModule.sanitizeName('get-weather')).toBe('get_weather');
    expect(schemaModule.sanitizeName('3d_enabled')).toBe('_3d_enabled');
    expect(schemaModule.sanitizeName('café au lait')).toBe('caf__au_lait');
    expect(schemaModule.sanitizeName('')).toBeUndefined();
    expect(schemaModule.sanitizeName('---')).toBeUndefined();
    expect(schemaModule.isIdentifier('_x1')).toBe(true);
    expect(schemaModule.isIdentifier('1x')).toBe(false);
  });
});
