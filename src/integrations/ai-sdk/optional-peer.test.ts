import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * `ai` is an optional peer: `intentguard/ai-sdk` must load without it. Each module is
 * compiled as the build compiles it (type-only imports vanish), and every import of
 * the emitted JavaScript is followed from the entry point.
 */

const entry = fileURLToPath(new URL('./index.ts', import.meta.url));

function emittedImports(file: string): string[] {
  const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
    compilerOptions: {
      // ESM, as the package is (`type: module`): `import` lines, not `require` calls.
      module: ts.ModuleKind.ES2022,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
    },
    fileName: file,
  });
  return [
    ...outputText.matchAll(
      /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g,
    ),
  ].map((match) => match[1] ?? match[2] ?? match[3] ?? '');
}

/** The modules and the bare (package) imports the entry point reaches at runtime. */
function reached(start: string): { modules: Set<string>; packages: Set<string> } {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const specifier of emittedImports(file)) {
      if (specifier.startsWith('.'))
        queue.push(join(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else packages.add(specifier);
    }
  }
  return { modules: seen, packages };
}

describe('intentguard/ai-sdk without the ai package', () => {
  const graph = reached(entry);

  it('imports nothing of the AI SDK at runtime, from any module it reaches', () => {
    const packages = [...graph.packages];
    expect(packages.filter((name) => /^(ai|ai-v7)(\/|$)|^@ai-sdk\//.test(name))).toEqual([]);
  });

  it('follows the relative imports down through the schema loader', () => {
    const modules = [...graph.modules].map((file) => file.replace(/^.*\/src\//, ''));
    expect(modules).toContain('integrations/ai-sdk/tool-schema.ts');
    expect(modules).toContain('schema/load-tools.ts');
  });

  it('loads and works with the ai package hidden', async () => {
    // A fresh module graph in which importing `ai` fails.
    const { vi } = await import('vitest');
    vi.resetModules();
    vi.doMock('ai', () => {
      throw new Error('ai is not installed');
    });
    vi.doMock('ai-v7', () => {
      throw new Error('ai is not installed');
    });
    const adapter = await import('./index.js');
    expect(Object.keys(adapter).sort()).toEqual([
      'AiSdkSetupError',
      'finishTool',
      'guardTools',
      'intentguardToolApproval',
      'isGuardRefusal',
      'isTaskFinished',
      'observeToolResults',
      'pendingPrompt',
      'schemaFromAiSdkTools',
      'syncApprovals',
    ]);
    vi.doUnmock('ai');
    vi.doUnmock('ai-v7');
  });
});
