/**
 * Check throughput of a running `intentguard serve` over HTTP (issue #9: ≥ 20,000
 * checks/s with 8 concurrent clients on 2 cores, p99 ≤ 5 ms): each client starts a
 * session from the bank-transfer spec and sends checks with fresh call ids — each one
 * decided, journaled and audited in SQLite before the answer — moving to a new session
 * every `checksPerSession` checks, as agent runs do; with `batch` > 1 each request carries
 * that many calls (`POST …/checks`) and its latency is the batch's. Run the server in another process
 * (`intentguard serve --rate-limit 0`) so that clients and server do not share a thread.
 *
 * @example
 * const figures = await measureCheckThroughput({ url: 'http://127.0.0.1:8787', token, durationMs: 10_000 });
 * // { checks: 81234, seconds: 10.0, checksPerSecond: 8123, p50Ms: 0.9, p99Ms: 2.1, errors: 0 }
 */

import { Agent, request } from 'node:http';
import { percentile } from './measure.js';

/** One POST on a keep-alive connection: status and body text. */
function post(
  agent: Agent,
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const sent = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        response.on('error', reject);
      },
    );
    sent.setTimeout(30_000, () => sent.destroy(new Error('the request timed out')));
    sent.on('error', reject);
    sent.end(body);
  });
}

export interface ThroughputOptions {
  readonly url: string;
  /**
   * Further instances of the same service (one database): client i sends to instance
   * i mod n, `url` being the first — or, with `spread: 'request'`, each request goes to
   * the next instance in turn, so that every check lands on an instance whose copy of
   * the session is behind.
   */
  readonly others?: readonly string[];
  readonly spread?: 'client' | 'request';
  readonly token: string;
  /** Concurrent clients (default 8), each with one request in flight. */
  readonly clients?: number;
  /** How long to measure (default 10 s), after `warmupMs` (default 1 s). */
  readonly durationMs?: number;
  readonly warmupMs?: number;
  /** Checks per session before the client starts another (default 100). */
  readonly checksPerSession?: number;
  /**
   * Calls per request (default 1: `POST …/check`); more sends them as one batch to
   * `POST …/checks`, as an agent's parallel tool calls are.
   */
  readonly batch?: number;
  /** The spec and tool schemas of the sessions (default: a one-tool read-only spec). */
  readonly spec?: string;
  readonly tools?: unknown;
}

export interface ThroughputFigures {
  readonly clients: number;
  /** Calls per request. */
  readonly batch: number;
  readonly checks: number;
  readonly seconds: number;
  readonly checksPerSecond: number;
  /** Request latency (a batch's, with `batch` > 1). */
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Requests answered with anything but 200. */
  readonly errors: number;
}

const defaultTools = {
  tools: [
    {
      name: 'Lookup',
      description: 'Looks a record up.',
      inputSchema: { type: 'object', properties: { key: { type: 'string' } } },
      annotations: { readOnlyHint: true },
    },
    {
      name: 'DeleteRecord',
      description: 'Deletes a record.',
      inputSchema: { type: 'object', properties: { key: { type: 'string' } } },
      annotations: { destructiveHint: true },
    },
  ],
};
const defaultSpec =
  'Lookup() -> Looked\nLooked -> Done\nreject DeleteRecord() because "nothing is deleted in this task"\n';

export async function measureCheckThroughput(
  options: ThroughputOptions,
): Promise<ThroughputFigures> {
  const clients = options.clients ?? 8;
  const durationMs = options.durationMs ?? 10_000;
  const warmupMs = options.warmupMs ?? 1000;
  const perSession = options.checksPerSession ?? 100;
  const batch = options.batch ?? 1;
  if (!Number.isInteger(batch) || batch < 1) throw new RangeError('batch: a whole number ≥ 1');
  const headers = { Authorization: `Bearer ${options.token}`, 'Content-Type': 'application/json' };
  const sessionBody = JSON.stringify({
    spec: options.spec ?? defaultSpec,
    tools: options.tools ?? defaultTools,
  });
  /** Per request (a batch is answered as a whole). */
  const latencies: number[] = [];
  let checks = 0;
  let errors = 0;
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  const start = performance.now();
  const measureFrom = start + warmupMs;
  const end = measureFrom + durationMs;

  const urls = [options.url, ...(options.others ?? [])];
  async function client(index: number): Promise<void> {
    let session = '';
    let n = 0;
    let requests = 0;
    while (performance.now() < end) {
      const url =
        urls[(options.spread === 'request' ? requests++ : index) % urls.length] ?? options.url;
      if (n % perSession < batch) {
        const created = await post(agent, `${url}/v1/sessions`, headers, sessionBody);
        const body = JSON.parse(created.text) as { id?: string };
        if (created.status !== 201 || body.id === undefined)
          throw new Error(`could not start a session: ${created.status}`);
        session = body.id;
      }
      const calls = Array.from({ length: batch }, () => {
        n++;
        return {
          id: `c${index}-${n}`,
          name: n % 2 === 0 ? 'Lookup' : 'DeleteRecord',
          args: { key: `k${n}` },
        };
      });
      const sent = performance.now();
      const response =
        batch === 1
          ? await post(
              agent,
              `${url}/v1/sessions/${session}/check`,
              headers,
              JSON.stringify(calls[0]),
            )
          : await post(
              agent,
              `${url}/v1/sessions/${session}/checks`,
              headers,
              JSON.stringify({ calls }),
            );
      const took = performance.now() - sent;
      if (sent >= measureFrom && sent < end) {
        latencies.push(took);
        checks += batch;
        if (response.status !== 200) errors += batch;
      }
    }
  }

  try {
    await Promise.all(Array.from({ length: clients }, (_, index) => client(index)));
  } finally {
    agent.destroy();
  }
  const sorted = Float64Array.from(latencies).sort();
  const seconds = durationMs / 1000;
  return {
    clients,
    batch,
    checks,
    seconds,
    checksPerSecond: Math.round(checks / seconds),
    p50Ms: Math.round(percentile(sorted, 0.5) * 100) / 100,
    p99Ms: Math.round(percentile(sorted, 0.99) * 100) / 100,
    errors,
  };
}
