import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { measureCheckThroughput } from '../../bench/http-throughput.js';
import { killAll, startServer } from './server-process.js';

const token = 'bench-token-0123456789abcdef';
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'intentguard-bench-'));
});
afterEach(killAll);
afterAll(async () => {
  await killAll();
  rmSync(dir, { recursive: true, force: true });
});

/** The throughput bench runs against a real server process (briefly: it must work, not be fast here). */
describe('measureCheckThroughput', () => {
  it('drives 8 clients against a live server and reports throughput and latency', async () => {
    const server = await startServer([
      '--db',
      join(dir, 'bench.db'),
      '--token',
      token,
      '--rate-limit',
      '0',
    ]);
    const figures = await measureCheckThroughput({
      url: server.url,
      token,
      durationMs: 500,
      warmupMs: 100,
      checksPerSession: 20,
    });
    expect(figures.clients).toBe(8);
    expect(figures.checks).toBeGreaterThan(0);
    expect(figures.errors).toBe(0);
    expect(figures.p99Ms).toBeGreaterThanOrEqual(figures.p50Ms);
    const batched = await measureCheckThroughput({
      url: server.url,
      token,
      durationMs: 500,
      warmupMs: 100,
      checksPerSession: 20,
      batch: 4,
    });
    expect(batched.batch).toBe(4);
    expect(batched.checks % 4).toBe(0);
    expect(batched.checks).toBeGreaterThan(0);
    expect(batched.errors).toBe(0);
  }, 60_000);
});
