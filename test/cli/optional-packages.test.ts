import { execFileSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import * as esbuild from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { commandPackages } from '../../src/cli/optional-packages.js';

/**
 * The lean install: the model providers, SQLite, hono and the MCP SDK are optional
 * dependencies, so the library entries must load without them, each CLI command that
 * needs them must declare them, and a command whose packages are missing must say what
 * to install.
 */
const root = resolve(import.meta.dirname, '../..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  readonly dependencies: Readonly<Record<string, string>>;
  readonly optionalDependencies: Readonly<Record<string, string>>;
};
const dependencies = Object.keys(manifest.dependencies);
const optionalDependencies = Object.keys(manifest.optionalDependencies);

function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

const commandModules = readdirSync(join(root, 'src/cli/commands'))
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
  .map((file) => `src/cli/commands/${file}`);

/** One import graph of the library entries and every command module. */
const graph = (
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: ['src/index.ts', 'src/node.ts', ...commandModules],
    bundle: true,
    write: false,
    outdir: 'unused',
    platform: 'node',
    format: 'esm',
    packages: 'external',
    metafile: true,
    logLevel: 'silent',
  })
).metafile;

/** The packages (not `node:` builtins) a module reaches: through static imports only, or all. */
function packagesReached(entry: string, staticOnly: boolean): string[] {
  const packages = new Set<string>();
  const seen = new Set<string>([entry]);
  const queue = [entry];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    for (const imported of graph.inputs[file]?.imports ?? []) {
      if (staticOnly && imported.kind !== 'import-statement') continue;
      if (imported.external) {
        if (!imported.path.startsWith('node:')) packages.add(packageOf(imported.path));
      } else if (!seen.has(imported.path)) {
        seen.add(imported.path);
        queue.push(imported.path);
      }
    }
  }
  return [...packages].sort();
}

describe('what each part loads', () => {
  for (const entry of ['src/index.ts', 'src/node.ts']) {
    it(`${entry} imports only dependencies, never an optional one`, () => {
      const reached = packagesReached(entry, true);
      expect(reached.filter((name) => !dependencies.includes(name))).toEqual([]);
    });
  }

  it('lists every command module that loads an optional package', () => {
    const needing = commandModules.filter((module) =>
      packagesReached(module, false).some((name) => !dependencies.includes(name)),
    );
    // A subcommand's module (`eval-taubench.ts` for `intentguard eval taubench`) is named
    // after its command and falls under the command's entry.
    const commandOf = (name: string) =>
      Object.keys(commandPackages).find((command) => name.startsWith(`${command}-`)) ?? name;
    const commands = needing.map((module) => commandOf(module.replace(/^.*\/|\.ts$/g, '')));
    expect([...new Set(commands)].sort()).toEqual(Object.keys(commandPackages).sort());
  });

  for (const [command, packages] of Object.entries(commandPackages)) {
    it(`intentguard ${command} declares every optional package its module loads`, () => {
      const reached = packagesReached(`src/cli/commands/${command}.ts`, false);
      expect(reached.filter((name) => !dependencies.includes(name))).toEqual([...packages].sort());
    });
  }

  it('declares only optional dependencies, and every optional dependency is needed', () => {
    const declared = new Set(Object.values(commandPackages).flat());
    expect([...declared].filter((name) => !optionalDependencies.includes(name))).toEqual([]);
    expect(optionalDependencies.filter((name) => !declared.has(name))).toEqual([]);
  });
});

interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

describe('an install without the optional dependencies', () => {
  const temp = mkdtempSync(join(tmpdir(), 'intentguard-lean-'));
  afterAll(() => rmSync(temp, { recursive: true, force: true }));

  /** The entries bundled into `folder`, next to a node_modules holding only `packages`. */
  async function install(folder: string, packages: readonly string[]): Promise<void> {
    await esbuild.build({
      absWorkingDir: root,
      entryPoints: { index: 'src/index.ts', node: 'src/node.ts' },
      bundle: true,
      splitting: true,
      outdir: join(temp, folder),
      platform: 'node',
      format: 'esm',
      packages: 'external',
      logLevel: 'silent',
    });
    for (const name of packages) {
      const link = join(temp, folder, 'node_modules', name);
      mkdirSync(dirname(link), { recursive: true });
      symlinkSync(join(root, 'node_modules', name), link, 'dir');
    }
  }

  it('loads both library entries, and a command that needs a missing package says what to install (exit 2)', async () => {
    await install('lean', dependencies);
    await install(
      'no-pg',
      [...dependencies, ...optionalDependencies].filter((name) => name !== 'pg'),
    );
    await install(
      'no-hono',
      [...dependencies, ...optionalDependencies].filter(
        (name) => name !== 'hono' && name !== '@hono/node-server',
      ),
    );
    const script = `
      const run = async (folder, argv) => {
        const { nodeIo, runCli } = await import(\`./\${folder}/node.js\`);
        let stdout = '';
        let stderr = '';
        const io = { ...nodeIo(), stdout: (t) => { stdout += t; }, stderr: (t) => { stderr += t; } };
        const code = await runCli(argv, io);
        return { code, stdout, stderr };
      };
      const root = await import('./lean/index.js');
      console.log(JSON.stringify({
        rootLoaded: typeof root.checkSpec === 'function' && typeof root.createGuard === 'function',
        check: await run('lean', ['check', '--help']),
        audit: await run('lean', ['audit', 'verify', 'audit.db']),
        demo: await run('lean', ['demo']),
        help: await run('lean', ['--help']),
        serve: await run('no-hono', ['serve', '--listen', '127.0.0.1:0', '--token', 'a-token-of-sixteen-chars']),
        servePostgres: await run('no-pg', ['serve', '--listen', '127.0.0.1:0', '--db', 'postgres://intentguard@127.0.0.1:1/intentguard', '--token', 'a-token-of-sixteen-chars']),
        auditPostgres: await run('no-pg', ['audit', 'verify', 'postgres://intentguard@127.0.0.1:1/intentguard']),
      }));
    `;
    writeFileSync(join(temp, 'run.mjs'), script);
    const output = JSON.parse(
      execFileSync(process.execPath, [join(temp, 'run.mjs')], { cwd: temp, encoding: 'utf8' }),
    ) as {
      readonly rootLoaded: boolean;
      readonly check: CliRun;
      readonly audit: CliRun;
      readonly demo: CliRun;
      readonly help: CliRun;
      readonly serve: CliRun;
      readonly servePostgres: CliRun;
      readonly auditPostgres: CliRun;
    };
    expect(output.rootLoaded).toBe(true);
    expect(output.check.code).toBe(0);
    expect(output.audit).toEqual({
      code: 2,
      stdout: '',
      stderr: 'intentguard audit needs better-sqlite3 and pg: npm install better-sqlite3 pg\n',
    });
    expect(output.demo).toEqual({
      code: 2,
      stdout: '',
      stderr: 'intentguard demo needs ai: npm install ai\n',
    });
    expect(output.serve).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'intentguard serve needs hono and @hono/node-server: npm install hono @hono/node-server\n',
    });
    // Without pg an SQLite service still runs (pg is loaded only for a postgres:// URL);
    // a PostgreSQL one says what to install.
    for (const command of ['serve', 'audit'] as const)
      expect(output[command === 'serve' ? 'servePostgres' : 'auditPostgres']).toEqual({
        code: 2,
        stdout: '',
        stderr: `intentguard ${command} needs pg: npm install pg\n`,
      });
    expect(output.help.code).toBe(0);
    expect(output.help.stdout).toMatch(/^ {2}serve \[options\]/m);
  }, 60_000);
});
