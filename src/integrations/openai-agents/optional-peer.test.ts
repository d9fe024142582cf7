import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const folder = new URL('./', import.meta.url);
const root = fileURLToPath(new URL('../../../', import.meta.url));
const sources = readdirSync(folder).filter(
  (name) => name.endsWith('.ts') && !name.endsWith('.test.ts'),
);

/** The module specifiers a compiled file still imports at run time. */
function runtimeImports(file: string): string[] {
  const output = ts.transpileModule(readFileSync(new URL(file, folder), 'utf8'), {
    compilerOptions: {
      module: ts.ModuleKind.ES2022,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
    },
    fileName: file,
  }).outputText;
  const pattern =
    /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|(?:import|require)\(\s*['"]([^'"]+)['"]|^import\s+['"]([^'"]+)['"]/gm;
  return [...output.matchAll(pattern)].map((match) => match[1] ?? match[2] ?? match[3] ?? '');
}

/** A loader hook that makes the framework impossible to import, as when it is not installed. */
const resolveHook = `export async function resolve(specifier, context, next) {
  if (specifier === 'openai' || specifier.startsWith('openai/') || specifier.startsWith('@openai/'))
    throw new Error('not installed: ' + specifier);
  return next(specifier, context);
}`;
const denyFramework = `data:text/javascript,${encodeURIComponent(
  `import { register } from 'node:module';
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(resolveHook)}`)});`,
)}`;

describe('@openai/agents stays an optional peer', () => {
  it('compiles to modules that import only the package itself', () => {
    expect(sources).toContain('index.ts');
    for (const file of sources) {
      for (const specifier of runtimeImports(file)) {
        expect(specifier, `${file} imports ${specifier}`).toMatch(/^\.\.?\//);
      }
    }
  });

  it('loads, with every export, where the framework cannot be imported', async () => {
    const script = `
      const adapter = await import('./src/integrations/openai-agents/index.ts');
      let framework = 'importable';
      try { await import('@openai/agents'); } catch (error) { framework = error.message; }
      console.log(JSON.stringify({ exports: Object.keys(adapter).sort(), framework }));
    `;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', denyFramework, '--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: root, timeout: 60_000 },
    );
    const loaded = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as {
      exports: string[];
      framework: string;
    };
    expect(loaded.framework).toBe('not installed: @openai/agents');
    expect(loaded.exports).toEqual([
      'answerInterruption',
      'finishBehavior',
      'finishToolOptions',
      'intentguardToolOptions',
      'resolveInterruptions',
      'schemaFromOpenAiAgentsTools',
    ]);
  });
});
