import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';

export const root = resolve(new URL('../..', import.meta.url).pathname);
export const filesystemServer = join(
  root,
  'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js',
);
/** The reference "everything" server, and the proxy's arguments that start it over stdio. */
export const everythingServer = join(
  root,
  'node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);
export const everythingUpstream = ['--', process.execPath, everythingServer, 'stdio'];
/** The CLI from source, as a real process (tsx compiles on the fly). */
export const cli = ['--import', 'tsx', join(root, 'src/cli/main.ts')];

export interface Sandbox {
  readonly dir: string;
  readonly specPath: string;
  cleanup(): void;
}

/** A temp directory the filesystem server serves, with a spec over its tools. */
export function sandbox(): Sandbox {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'intentguard-mcp-')));
  const dir = join(base, 'files');
  const specPath = join(base, 'task.intent');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'hello.txt'), 'hello from the sandbox\n');
  writeFileSync(join(dir, 'keep.txt'), 'do not touch\n');
  writeFileSync(join(dir, 'report.txt'), 'old report\n');
  writeFileSync(
    specPath,
    [
      '# Write the notes; the report only with the user approval.',
      `write_file(path = "${dir}/notes.txt") -> Noted`,
      '@confirm(safety, "Overwriting the report needs the user\'s approval")',
      `write_file(path = "${dir}/report.txt") -> Reported`,
      'Noted -> Done',
      '',
    ].join('\n'),
  );
  return { dir, specPath, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

export type Elicit = (message: string) => ElicitResult | Promise<ElicitResult>;

/** An MCP SDK client; with `elicit`, it declares the elicitation capability and answers with it. */
export function newClient(elicit?: Elicit): Client {
  const client = new Client(
    { name: 'test-client', version: '1.0.0' },
    { capabilities: elicit ? { elicitation: { form: {} } } : {} },
  );
  if (elicit)
    client.setRequestHandler(ElicitRequestSchema, (request) => elicit(request.params.message));
  return client;
}

export interface StdioProxy {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  stderr(): string;
  close(): Promise<void>;
}

/** The client → `intentguard mcp-proxy` (stdio) → the filesystem server on `dir` (or `upstream`). */
export async function connectStdio(
  flags: readonly string[],
  dir: string,
  elicit?: Elicit,
  upstream: readonly string[] = ['--', process.execPath, filesystemServer, dir],
): Promise<StdioProxy> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...cli, 'mcp-proxy', ...flags, ...upstream],
    cwd: root,
    stderr: 'pipe',
    env: {
      ...(process.env as Record<string, string>),
      NO_COLOR: '1',
      OPENAI_API_KEY: 'sk-test-key',
    },
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = newClient(elicit);
  await client.connect(transport);
  return {
    client,
    transport,
    stderr: () => stderr,
    close: () => client.close(),
  };
}

/** Waits (bounded) until `test` holds. */
export async function waitFor(
  test: () => boolean,
  what: string,
  timeoutMs = 15_000,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

export interface HttpProxy {
  readonly process: ChildProcess;
  readonly url: string;
  stderr(): string;
  stop(): Promise<void>;
}

/** `intentguard mcp-proxy --listen 127.0.0.1:0` as a process; its URL read from stderr. */
export async function startHttpProxy(flags: readonly string[], dir: string): Promise<HttpProxy> {
  const child = spawn(
    process.execPath,
    [
      ...cli,
      'mcp-proxy',
      '--listen',
      '127.0.0.1:0',
      ...flags,
      '--',
      process.execPath,
      filesystemServer,
      dir,
    ],
    // Its own session: no controlling terminal, so `console` confirmations cannot ask.
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      env: { ...process.env, NO_COLOR: '1' },
    },
  );
  let stderr = '';
  let exited = false;
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  child.once('exit', () => {
    exited = true;
  });
  const stop = async (): Promise<void> => {
    if (exited) return;
    child.kill('SIGTERM');
    try {
      await waitFor(() => exited, 'the proxy to exit', 5000);
    } catch {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    }
  };
  try {
    await waitFor(() => /listening on (\S+)/.test(stderr) || exited, 'the proxy to listen', 30_000);
  } catch (error) {
    await stop();
    throw error;
  }
  const url = /listening on (\S+)/.exec(stderr)?.[1];
  if (!url) {
    await stop();
    throw new Error(`the proxy did not start:\n${stderr}`);
  }
  return { process: child, url, stderr: () => stderr, stop };
}

export async function connectHttp(url: string, elicit?: Elicit): Promise<Client> {
  const client = newClient(elicit);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** The text of a tool result. */
export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((part) => part.text ?? '').join('\n');
}

/** A client straight to the filesystem server, to compare with what comes through the proxy. */
export async function connectDirect(dir: string): Promise<Client> {
  const client = newClient();
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [filesystemServer, dir],
      stderr: 'pipe',
    }),
  );
  return client;
}
