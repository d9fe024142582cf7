import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureCheckThroughput } from './http-throughput.js';
import { mcpProxyOverhead } from './mcp-overhead.js';
import { table } from './measure.js';

/**
 * The servers' rows (issue #9): `check` throughput of `intentguard serve` over HTTP on
 * loopback with 8 concurrent clients (the server in its own process), and the MCP
 * proxy's overhead per `tools/call` against calling the upstream directly.
 */
export const benchToken = 'bench-token-0123456789';
const token = benchToken;

/** `intentguard serve --db DB` in its own process, without a rate limit. */
export async function startServe(db: string): Promise<{ url: string; stop: () => void }> {
  const cli = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
  const child = spawn(
    process.execPath,
    [cli, 'serve', '--listen', '127.0.0.1:0', '--db', db, '--token', token, '--rate-limit', '0'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${seen}`)), 20_000);
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      seen += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(seen);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.on('exit', (code) => reject(new Error(`serve exited (${code}): ${seen}`)));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

export async function serversBench(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'intentguard-bench-serve-'));
  const server = await startServe(join(directory, 'sessions.db'));
  try {
    const single = await measureCheckThroughput({ url: server.url, token, durationMs: 5_000 });
    const batched = await measureCheckThroughput({
      url: server.url,
      token,
      durationMs: 5_000,
      batch: 8,
    });
    console.log(
      '\nintentguard serve: check throughput over HTTP on loopback, 8 clients (one request in flight each), server in its own process, every check journaled and audited in SQLite (group commit) before its answer; one call per request (POST …/check) and 8 per request (POST …/checks, parallel tool calls) (targets ≥ 20,000 checks/s, p99 ≤ 5 ms)',
    );
    console.log(
      table(
        ['calls/request', 'clients', 'checks', 'checks/s', 'p50 ms', 'p99 ms', 'errors'],
        [single, batched].map((figures) => [
          String(figures.batch),
          String(figures.clients),
          figures.checks.toLocaleString('en-US'),
          Math.round(figures.checksPerSecond).toLocaleString('en-US'),
          figures.p50Ms.toFixed(2),
          figures.p99Ms.toFixed(2),
          String(figures.errors),
        ]),
      ),
    );
  } finally {
    server.stop();
    rmSync(directory, { recursive: true, force: true });
  }
  const proxy = await mcpProxyOverhead({ calls: 1_000 });
  console.log(
    '\nMCP proxy: ms per tools/call (read_text_file on the reference filesystem server), direct vs through intentguard mcp-proxy, without and with --audit, round-robin (targets: overhead p50 ≤ 1 ms, with --audit ≤ 1.5 ms)',
  );
  console.log(
    table(
      ['path', 'p50 ms', 'p99 ms'],
      [
        ['direct', proxy.direct.p50.toFixed(2), proxy.direct.p99.toFixed(2)],
        ['proxied', proxy.proxied.p50.toFixed(2), proxy.proxied.p99.toFixed(2)],
        ['overhead', proxy.overheadP50.toFixed(2), proxy.overheadP99.toFixed(2)],
        ['proxied --audit', proxy.audited.p50.toFixed(2), proxy.audited.p99.toFixed(2)],
        [
          'overhead --audit',
          proxy.auditedOverheadP50.toFixed(2),
          proxy.auditedOverheadP99.toFixed(2),
        ],
      ],
    ),
  );
}
