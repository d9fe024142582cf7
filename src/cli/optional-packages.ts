import { joinWords } from '../engine/describe.js';

/**
 * The packages each command loads beyond package.json `dependencies`. They are
 * `optionalDependencies`: installed by default, left out by `npm install --omit=optional`,
 * so the library entries never load them and the commands load them only when they run
 * (a dynamic `import()` in their action). test/cli/optional-packages.test.ts checks this
 * table against each command module's imports.
 */
const modelPackages = ['ai', '@ai-sdk/anthropic', '@ai-sdk/openai', '@ai-sdk/openai-compatible'];

export const commandPackages: Readonly<Record<string, readonly string[]>> = {
  formalize: [...modelPackages, 'better-sqlite3'],
  memory: ['better-sqlite3'],
  demo: ['ai'],
  eval: modelPackages,
  serve: ['hono', '@hono/node-server', 'better-sqlite3', 'pg', ...modelPackages],
  audit: ['better-sqlite3', 'pg'],
  'mcp-proxy': [
    '@modelcontextprotocol/sdk',
    'hono',
    '@hono/node-server',
    'better-sqlite3',
    ...modelPackages,
  ],
};

/** `intentguard serve needs hono and @hono/node-server: npm install hono @hono/node-server` */
export function missingPackagesMessage(command: string, missing: readonly string[]): string {
  return `intentguard ${command} needs ${joinWords(missing)}: npm install ${missing.join(' ')}`;
}

/**
 * When `error` is a module that could not be found while `command` ran, and some of the
 * command's optional packages are not installed: the message that says what to install.
 * Otherwise undefined (the error is a bug, reported as such).
 */
export async function missingPackagesProblem(
  command: string | undefined,
  error: unknown,
): Promise<string | undefined> {
  if (command === undefined || !Object.hasOwn(commandPackages, command)) return;
  const packages = commandPackages[command];
  if (packages === undefined || !isModuleNotFound(error)) return;
  const installed = await Promise.all(
    packages.map((name) =>
      import(name).then(
        () => true,
        (probe: unknown) => !isModuleNotFound(probe),
      ),
    ),
  );
  const missing = packages.filter((_, index) => !installed[index]);
  return missing.length === 0 ? undefined : missingPackagesMessage(command, missing);
}

/** Whether `error` is an `import()` of a package that is not installed. */
export function isModuleNotFound(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'ERR_MODULE_NOT_FOUND';
}
