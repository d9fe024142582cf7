import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { percentile } from './measure.js';

/** What `mcpProxyOverhead` measured, in milliseconds per `tools/call`. */
export interface McpProxyOverhead {
  readonly calls: number;
  readonly direct: Percentiles;
  readonly proxied: Percentiles;
  /** Through a second proxy run with `--audit FILE.db`. */
  readonly audited: Percentiles;
  /** proxied p50 − direct p50: what the proxy process and the guard add per call. */
  readonly overheadP50: number;
  readonly overheadP99: number;
  /** audited p50 − direct p50: the same with every decision and result written to SQLite. */
  readonly auditedOverheadP50: number;
  readonly auditedOverheadP99: number;
}

interface Percentiles {
  readonly p50: number;
  readonly p99: number;
}

/** The CLI next to this file: `dist/cli/main.js` when built, else the source through tsx. */
function cliCommand(): string[] {
  const built = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
  if (existsSync(built)) return [built];
  return ['--import', 'tsx', fileURLToPath(new URL('../src/cli/main.ts', import.meta.url))];
}

function percentiles(times: number[]): Percentiles {
  times.sort((x, y) => x - y);
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
}

/**
 * Proxy overhead per `tools/call`, with real processes: an MCP SDK client calls the
 * reference filesystem server's `read_text_file` on a small file directly, through
 * `intentguard mcp-proxy` (a separate process, as clients run it), and through a second
 * proxy with `--audit`, round-robin call by call so that all three see the same machine.
 * Needs the dev dependency `@modelcontextprotocol/server-filesystem`. Targets: overhead
 * p50 ≤ 1 ms; with `--audit` ≤ 1.5 ms.
 */
export async function mcpProxyOverhead(
  options: { calls?: number; warmup?: number } = {},
): Promise<McpProxyOverhead> {
  const calls = options.calls ?? 1000;
  const warmup = options.warmup ?? 100;
  const require = createRequire(import.meta.url);
  const serverPackage = require.resolve('@modelcontextprotocol/server-filesystem/package.json');
  const server = join(serverPackage, '..', 'dist', 'index.js');
  const dir = mkdtempSync(join(tmpdir(), 'intentguard-mcp-bench-'));
  const file = join(dir, 'small.txt');
  writeFileSync(file, 'a small file\n');
  const specPath = join(dir, 'task.intent');
  writeFileSync(specPath, `write_file(path = "${dir}/out.txt") -> Written\nWritten -> Done\n`);
  const proxy = (flags: readonly string[]) =>
    new StdioClientTransport({
      command: process.execPath,
      args: [
        ...cliCommand(),
        'mcp-proxy',
        '--spec',
        specPath,
        '--confirm',
        'deny',
        ...flags,
        '--',
        process.execPath,
        server,
        dir,
      ],
      stderr: 'pipe',
    });
  const clients = {
    direct: new Client({ name: 'bench', version: '1' }),
    proxied: new Client({ name: 'bench', version: '1' }),
    audited: new Client({ name: 'bench', version: '1' }),
  };
  try {
    await clients.direct.connect(
      new StdioClientTransport({ command: process.execPath, args: [server, dir], stderr: 'pipe' }),
    );
    await clients.proxied.connect(proxy([]));
    await clients.audited.connect(proxy(['--audit', join(dir, 'audit.db')]));
    const call = { name: 'read_text_file', arguments: { path: file } };
    const times = { direct: [] as number[], proxied: [] as number[], audited: [] as number[] };
    for (let index = 0; index < warmup + calls; index++) {
      for (const path of ['direct', 'proxied', 'audited'] as const) {
        const start = performance.now();
        const result = await clients[path].callTool(call);
        const elapsed = performance.now() - start;
        if (result.isError) throw new Error(`the benchmark call failed (${path})`);
        if (index >= warmup) times[path].push(elapsed);
      }
    }
    const direct = percentiles(times.direct);
    const proxied = percentiles(times.proxied);
    const audited = percentiles(times.audited);
    return {
      calls,
      direct,
      proxied,
      audited,
      overheadP50: proxied.p50 - direct.p50,
      overheadP99: proxied.p99 - direct.p99,
      auditedOverheadP50: audited.p50 - direct.p50,
      auditedOverheadP99: audited.p99 - direct.p99,
    };
  } finally {
    for (const client of Object.values(clients)) await client.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}
