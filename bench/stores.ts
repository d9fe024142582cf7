import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgresCluster } from '../test/support/postgres-cluster.js';
import { measureCheckThroughput, type ThroughputFigures } from './http-throughput.js';
import { table } from './measure.js';
import { benchToken, startServe } from './servers.js';

/**
 * The stores' rows (issue #23): `check` throughput and p99 of `intentguard serve` on
 * SQLite (one instance) and on PostgreSQL (one instance, and two instances on one
 * database), with the client on the same machine, beside the floor — a server that
 * answers every request at once without deciding or storing anything — measured in the
 * same run with the same client. The PostgreSQL server is Debian's, started here with
 * its default durability (fsync, synchronous commit).
 */

/** A server process that answers every request with a fixed body: what HTTP alone costs. */
async function startFloor(): Promise<{ url: string; stop: () => void }> {
  const program = `
    const { createServer } = require('node:http');
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        const created = request.url === '/v1/sessions';
        response.writeHead(created ? 201 : 200, { 'Content-Type': 'application/json' });
        response.end(created ? '{"id":"floor"}' : '{"action":"run"}');
      });
    });
    server.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + server.address().port));
  `;
  const child = spawn(process.execPath, ['-e', program], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      seen += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(seen);
      if (match?.[1]) resolve(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`the floor server exited (${code})`)));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

const durationMs = 5_000;

export async function storesBench(): Promise<void> {
  const rows: [string, ThroughputFigures][] = [];
  const measure = (url: string, others: readonly string[] = [], spread?: 'request') =>
    measureCheckThroughput({
      url,
      others,
      token: benchToken,
      durationMs,
      ...(spread ? { spread } : {}),
    });
  const floor = await startFloor();
  try {
    rows.push(['no-op HTTP server (floor)', await measure(floor.url)]);
  } finally {
    floor.stop();
  }
  const directory = mkdtempSync(join(tmpdir(), 'intentguard-bench-stores-'));
  try {
    const sqlite = await startServe(join(directory, 'sessions.db'));
    try {
      rows.push(['SQLite, 1 instance', await measure(sqlite.url)]);
    } finally {
      sqlite.stop();
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  const cluster = await startPostgresCluster({ durable: true });
  try {
    const one = await cluster.createDatabase('bench_one');
    const single = await startServe(one);
    try {
      rows.push(['PostgreSQL, 1 instance', await measure(single.url)]);
    } finally {
      single.stop();
    }
    const two = await cluster.createDatabase('bench_two');
    const a = await startServe(two);
    const b = await startServe(two);
    try {
      rows.push(['PostgreSQL, 2 instances (clients split)', await measure(a.url, [b.url])]);
      rows.push([
        'PostgreSQL, 2 instances (requests alternate)',
        await measure(a.url, [b.url], 'request'),
      ]);
    } finally {
      a.stop();
      b.stop();
    }
  } finally {
    await new Promise((resolve) => setTimeout(resolve, 500));
    await cluster.remove();
  }
  console.log(
    `\nintentguard serve by store: check throughput over HTTP on loopback, 8 clients (one request in flight each), servers in their own processes, client on the same machine, ${durationMs / 1000} s each; every check journaled and audited before its answer (group commit on both: SQLite, one transaction per turn of the event loop; PostgreSQL, one transaction per group of sessions' checks under their row locks and the audit head's lock, fsync on). "clients split": each client keeps to one instance; "requests alternate": each request goes to the other instance, which catches up on the session first (the lines it lacks)`,
  );
  console.log(
    table(
      ['store', 'checks', 'checks/s', 'p50 ms', 'p99 ms', 'errors'],
      rows.map(([name, figures]) => [
        name,
        figures.checks.toLocaleString('en-US'),
        Math.round(figures.checksPerSecond).toLocaleString('en-US'),
        figures.p50Ms.toFixed(2),
        figures.p99Ms.toFixed(2),
        String(figures.errors),
      ]),
    ),
  );
}
