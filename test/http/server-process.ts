import { type ChildProcess, spawn } from 'node:child_process';

export const projectRoot = new URL('../../', import.meta.url).pathname;

export interface ServerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything the server wrote on stderr so far. */
  stderr(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code (null when killed). */
  stop(graceMs?: number): Promise<number | null>;
  /** `kill -9`. */
  kill(): Promise<void>;
}

const running = new Set<ChildProcess>();

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Starts `intentguard serve ARGS` as a real process and waits (bounded) for its URL on stderr. */
export function startServer(
  args: readonly string[],
  env: Record<string, string> = {},
  timeoutMs = 20_000,
): Promise<ServerProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--listen', '127.0.0.1:0', ...args],
    {
      cwd: projectRoot,
      env: { ...process.env, INTENTGUARD_TOKEN: undefined, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  running.add(child);
  child.once('exit', () => running.delete(child));
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stdout?.resume();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not start within ${timeoutMs} ms:\n${stderr}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code} before listening:\n${stderr}`));
    });
    child.stderr?.on('data', (chunk: string) => {
      stderr += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match?.[1]) {
        clearTimeout(timer);
        const url = match[1];
        resolve({
          url,
          child,
          stderr: () => stderr,
          stop: async (graceMs = 5000) => {
            const done = exited(child);
            child.kill('SIGTERM');
            const timer2 = setTimeout(() => child.kill('SIGKILL'), graceMs);
            const code = await done;
            clearTimeout(timer2);
            return code;
          },
          kill: async () => {
            const done = exited(child);
            child.kill('SIGKILL');
            await done;
          },
        });
      }
    });
  });
}

/** Kills every server a test left running (afterEach / afterAll). */
export async function killAll(): Promise<void> {
  await Promise.all(
    [...running].map((child) => {
      const done = exited(child);
      child.kill('SIGKILL');
      return done;
    }),
  );
}

export interface ServiceAnswer<Body> {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly body: Body;
}

/** One JSON request to a running service, as a client sends it, bounded in time. */
export async function callService<Body = Record<string, unknown>>(
  url: string,
  bearer: string,
  method: string,
  path: string,
  body?: unknown,
  timeoutMs = 10_000,
): Promise<ServiceAnswer<Body>> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${bearer}`, 'Content-Type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as Body,
  };
}
