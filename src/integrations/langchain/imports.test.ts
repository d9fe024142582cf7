import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/*
 * `intentguard/langchain` must load without LangChain installed (an optional peer): the
 * JavaScript the build emits for it, and for everything it imports, names no LangChain
 * package. Each file is compiled as `tsc` compiles it (type-only imports are erased), and
 * the relative imports are followed.
 */

const root = resolve(new URL('../../..', import.meta.url).pathname);
const entry = resolve(root, 'src/integrations/langchain/index.ts');
// ES modules, as the package emits them (`"type": "module"`); import elision is tsc's.
const compilerOptions: ts.CompilerOptions = {
  module: ts.ModuleKind.ES2022,
  target: ts.ScriptTarget.ES2022,
  verbatimModuleSyntax: true,
};

/** The module specifiers the emitted JavaScript of `file` imports. */
function emittedImports(file: string): string[] {
  const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
    compilerOptions,
    fileName: file,
  });
  const emitted = ts.createSourceFile(`${file}.js`, outputText, ts.ScriptTarget.ES2022);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    )
      found.push(node.moduleSpecifier.text);
    if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    )
      found.push(node.arguments[0].text);
    ts.forEachChild(node, visit);
  };
  visit(emitted);
  return found;
}

/** Every package the built module loads, following relative imports from `start`. */
function packagesLoaded(start: string): { packages: Set<string>; files: number } {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const specifier of emittedImports(file)) {
      if (specifier.startsWith('.'))
        queue.push(resolve(dirname(file), specifier).replace(/\.js$/, '.ts'));
      else packages.add(specifier);
    }
  }
  return { packages, files: seen.size };
}

describe('intentguard/langchain at run time', () => {
  const { packages, files } = packagesLoaded(entry);
  const manifest = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };

  it('follows the module beyond its folder', () => {
    // The adapter's six files and the language layer's argument checks.
    expect(files).toBeGreaterThan(6);
    expect(packages.has('zod')).toBe(true);
  });

  it('loads no LangChain package', () => {
    const framework = [...packages].filter(
      (name) => name === 'langchain' || name.startsWith('@langchain/'),
    );
    expect(framework).toEqual([]);
  });

  it('loads only Node built-ins and the dependencies every install has', () => {
    const packageName = (specifier: string) =>
      specifier
        .split('/')
        .slice(0, specifier.startsWith('@') ? 2 : 1)
        .join('/');
    const missing = [...packages]
      .filter((specifier) => !specifier.startsWith('node:'))
      .map(packageName)
      .filter((name) => !(name in manifest.dependencies));
    expect(missing).toEqual([]);
  });

  it('would see a LangChain import if there were one', () => {
    const probe = ts.transpileModule(
      "import { ToolMessage } from '@langchain/core/messages';\nimport type { AgentMiddleware } from 'langchain';\nexport const x = ToolMessage;",
      { compilerOptions },
    ).outputText;
    expect(probe).toContain('@langchain/core/messages');
    expect(probe).not.toMatch(/from ['"]langchain['"]/);
  });
});
