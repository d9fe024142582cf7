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
  readonly direct: { readonly p50: number; readonly p99: number };
  readonly proxied: { readonly p50: number; readonly p99: number };
  /** proxied p50 − direct p50: what the proxy process and the guard add per call. */
  readonly overheadP50: number;
  readonly overheadP99: number;
}

/** The CLI next to this file: `dist/cli/main.js` when built, else the source through tsx. */
function cliCommand(): string[] {
  const built = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
  if (existsSync(built)) return [built];
  return ['--import', 'tsx', fileURLToPath(new URL('../src/cli/main.ts', import.meta.url))];
}

/**
 * Proxy overhead per `tools/call`, with real processes: an MCP SDK client calls the
 * reference filesystem server's `read_text_file` on a small file directly, and through
 * `intentguard mcp-proxy` (a separate process, as clients run it), alternating call by
 * call so that both see the same machine. Needs the dev dependency
 * `@modelcontextprotocol/server-filesystem`. Target: overhead p50 ≤ 1 ms.
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
  const direct = new Client({ name: 'bench', version: '1' });
  const proxied = new Client({ name: 'bench', version: '1' });
  try {
    await direct.connect(
      new StdioClientTransport({ command: process.execPath, args: [server, dir], stderr: 'pipe' }),
    );
    await proxied.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [
          ...cliCommand(),
          'mcp-proxy',
          '--spec',
          specPath,
          '--confirm',
          'deny',
          '--',
          process.execPath,
          server,
          dir,
        ],
        stderr: 'pipe',
      }),
    );
    const call = { name: 'read_text_file', arguments: { path: file } };
    const directTimes: number[] = [];
    const proxiedTimes: number[] = [];
    for (let index = 0; index < warmup + calls; index++) {
      let start = performance.now();
      const a = await direct.callTool(call);
      const directMs = performance.now() - start;
      start = performance.now();
      const b = await proxied.callTool(call);
      const proxiedMs = performance.now() - start;
      if (a.isError || b.isError) throw new Error('the benchmark call failed');
      if (index >= warmup) {
        directTimes.push(directMs);
        proxiedTimes.push(proxiedMs);
      }
    }
    directTimes.sort((x, y) => x - y);
    proxiedTimes.sort((x, y) => x - y);
    const d = { p50: percentile(directTimes, 0.5), p99: percentile(directTimes, 0.99) };
    const p = { p50: percentile(proxiedTimes, 0.5), p99: percentile(proxiedTimes, 0.99) };
    return {
      calls,
      direct: d,
      proxied: p,
      overheadP50: p.p50 - d.p50,
      overheadP99: p.p99 - d.p99,
    };
  } finally {
    await direct.close().catch(() => undefined);
    await proxied.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}
