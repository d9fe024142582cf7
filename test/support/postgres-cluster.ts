import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

/**
 * A real PostgreSQL server for tests, started by the test itself: Debian's `postgresql`
 * binaries, a cluster `initdb`'d in a temporary folder, listening on a free loopback
 * port only (and a socket in that folder), stopped and removed after. PostgreSQL refuses
 * to run as root, and tests run as root in CI: then the server runs as the `postgres`
 * system user (`runuser`), the folder given to it. `fsync` is off unless `durable`: the
 * tests kill service instances, never the server, and a cluster lives as long as its
 * test file. The benchmark (bench/stores.ts) starts a durable one the same way.
 */

const run = promisify(execFile);

/** Where Debian installs the server's binaries (the newest version present). */
function binaries(): string {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base)
    ? readdirSync(base)
        .filter((name) => existsSync(join(base, name, 'bin', 'postgres')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const version = versions[0];
  if (version === undefined)
    throw new Error(
      "PostgreSQL is not installed: these tests need Debian's postgresql package (apt-get install postgresql)",
    );
  return join(base, version, 'bin');
}

const asRoot = userInfo().uid === 0;

/** Runs a server binary, as `postgres` when this process is root. */
function server(program: string, args: readonly string[]) {
  const path = join(binaries(), program);
  return asRoot ? run('runuser', ['-u', 'postgres', '--', path, ...args]) : run(path, [...args]);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address !== null
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

export interface PostgresCluster {
  readonly port: number;
  /** The URL of a database of this cluster (user `intentguard`, no password: trust on loopback). */
  url(database: string): string;
  /** Creates an empty database and gives its URL. */
  createDatabase(name: string): Promise<string>;
  /** Runs SQL on a database, as the test's own client (tampering, inspection). */
  sql<Row extends Record<string, unknown>>(
    database: string,
    text: string,
    values?: readonly unknown[],
  ): Promise<Row[]>;
  /** Stops the server (fast: open connections are cut), keeping its data. */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  /** Stops the server and removes the cluster. */
  remove(): Promise<void>;
}

export interface ClusterOptions {
  /**
   * PostgreSQL's own durability settings (`fsync`, `synchronous_commit` on), as a
   * deployment runs it: for benchmarks. Tests turn them off (default).
   */
  readonly durable?: boolean;
}

/** initdb's and starts a cluster; `remove()` it after (afterAll). */
export async function startPostgresCluster(
  clusterOptions: ClusterOptions = {},
): Promise<PostgresCluster> {
  const folder = mkdtempSync(join(tmpdir(), 'intentguard-pg-'));
  const data = join(folder, 'data');
  if (asRoot) {
    chmodSync(folder, 0o700);
    chownSync(
      folder,
      Number((await run('id', ['-u', 'postgres'])).stdout.trim()),
      Number((await run('id', ['-g', 'postgres'])).stdout.trim()),
    );
  }
  await server('initdb', [
    '-D',
    data,
    '-U',
    'intentguard',
    '--auth=trust',
    '-E',
    'UTF8',
    '--no-sync',
    '--no-instructions',
  ]);
  const port = await freePort();
  const fast = clusterOptions.durable
    ? ''
    : ' -c fsync=off -c synchronous_commit=off -c full_page_writes=off';
  const options = `-k ${folder} -c listen_addresses=127.0.0.1 -p ${port} -c max_connections=200${fast}`;
  const start = async () => {
    await server('pg_ctl', [
      '-D',
      data,
      '-l',
      join(folder, 'log'),
      '-w',
      '-t',
      '30',
      '-o',
      options,
      'start',
    ]);
  };
  const stop = async () => {
    await server('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  };
  await start();
  const url = (database: string) => `postgres://intentguard@127.0.0.1:${port}/${database}`;
  const sql = async <Row extends Record<string, unknown>>(
    database: string,
    text: string,
    values: readonly unknown[] = [],
  ): Promise<Row[]> => {
    const client = new pg.Client({ connectionString: url(database) });
    await client.connect();
    try {
      return (await client.query<Row>(text, [...values])).rows;
    } finally {
      await client.end();
    }
  };
  let running = true;
  return {
    port,
    url,
    sql,
    createDatabase: async (name) => {
      await sql('postgres', `CREATE DATABASE ${pg.escapeIdentifier(name)}`);
      return url(name);
    },
    stop: async () => {
      await stop();
      running = false;
    },
    start: async () => {
      await start();
      running = true;
    },
    remove: async () => {
      if (running) await stop().catch(() => undefined);
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
