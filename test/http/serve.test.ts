import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../cli/run.js';
import { callService, killAll, projectRoot, startServer } from './server-process.js';

const token = 'test-token-0123456789abcdef';
const bankSpec = readFileSync(join(projectRoot, 'examples/bank-transfer/spec.intent'), 'utf8');
const bankTools = JSON.parse(
  readFileSync(join(projectRoot, 'examples/bank-transfer/tools.json'), 'utf8'),
) as unknown;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'intentguard-serve-'));
});
afterEach(killAll);
afterAll(async () => {
  await killAll();
  rmSync(dir, { recursive: true, force: true });
});

function api(url: string, method: string, path: string, body?: unknown, bearer = token) {
  return callService(url, bearer, method, path, body);
}

describe('intentguard serve (a real process)', () => {
  it('restores every open session after kill -9 with the same decisions', async () => {
    const db = join(dir, 'restart.db');
    const first = await startServer(['--db', db, '--token', token]);
    expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const created = await api(first.url, 'POST', '/v1/sessions', {
      spec: bankSpec,
      tools: bankTools,
      now: '2026-01-05T09:00:00',
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const check = (url: string, callId: string, name: string, args: unknown) =>
      api(url, 'POST', `/v1/sessions/${id}/check`, { id: callId, name, args });
    const before = [
      await check(first.url, 'c1', 'BankTransfer', { to: 'Alice', amount: 500 }),
      await check(first.url, 'c2', 'BankCheckBalance', {}),
    ];
    expect(before.map((answer) => answer.body.action)).toEqual(['refuse', 'run']);
    expect(
      (
        await api(first.url, 'POST', `/v1/sessions/${id}/result`, {
          id: 'c2',
          output: { balance: 1500 },
        })
      ).body.ok,
    ).toBe(true);
    const asked = await check(first.url, 'c3', 'BankTransfer', { to: 'Alice', amount: 500 });
    expect(asked.body.action).toBe('ask');
    const sessionBefore = await api(first.url, 'GET', `/v1/sessions/${id}`);
    await first.kill();

    const second = await startServer(['--db', db, '--token', token]);
    expect(second.stderr()).toContain('1 open session restored');
    expect(await api(second.url, 'GET', `/v1/sessions/${id}`)).toEqual(sessionBefore);
    // The same calls get the same decisions, verdicts and all.
    expect(await check(second.url, 'c1', 'BankTransfer', { to: 'Alice', amount: 500 })).toEqual(
      before[0],
    );
    expect(await check(second.url, 'c3', 'BankTransfer', { to: 'Alice', amount: 500 })).toEqual(
      asked,
    );
    const approvals = await api(second.url, 'GET', '/v1/approvals');
    expect(approvals.body.approvals).toMatchObject([{ session: id, id: 'c3' }]);
    // The run continues: approve, report, finish.
    expect(
      (await api(second.url, 'POST', `/v1/sessions/${id}/approve`, { id: 'c3', approved: true }))
        .body.action,
    ).toBe('run');
    await api(second.url, 'POST', `/v1/sessions/${id}/result`, { id: 'c3', output: {} });
    expect(
      (await check(second.url, 'c4', 'BankTransfer', { to: 'Alice', amount: 500 })).body.action,
    ).toBe('refuse');
    expect((await api(second.url, 'POST', `/v1/sessions/${id}/finish`)).body.action).toBe('run');
    expect(await second.stop()).toBe(0);

    // The audit log of both runs is one intact chain; the CLI verifies it.
    const verified = await run(['audit', 'verify', db]);
    expect(verified.stdout).toMatch(/intact — \d+ entries/);
    expect(verified.code).toBe(0);
  }, 60_000);

  it('answers 401 without a token and 404 for another token', async () => {
    const db = join(dir, 'auth.db');
    const other = 'other-token-0123456789abcdef';
    const server = await startServer(['--db', db, '--token', token], { INTENTGUARD_TOKEN: other });
    const created = await api(server.url, 'POST', '/v1/sessions', {
      spec: bankSpec,
      tools: bankTools,
    });
    const response = await fetch(`${server.url}/v1/sessions/${created.body.id as string}`, {
      signal: AbortSignal.timeout(10_000),
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code: 'unauthorized' });
    expect(
      (await api(server.url, 'GET', `/v1/sessions/${created.body.id as string}`, undefined, other))
        .status,
    ).toBe(404);
    const malformed = await fetch(`${server.url}/v1/sessions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
      body: '{"spec":',
      signal: AbortSignal.timeout(10_000),
    });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual({
      code: 'malformed-json',
      message: 'the request body is not valid JSON',
    });
    const big = await fetch(`${server.url}/v1/sessions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
      body: 'x'.repeat(2 * 1024 * 1024),
      signal: AbortSignal.timeout(10_000),
    });
    expect(big.status).toBe(413);
    expect(await server.stop()).toBe(0);
  }, 60_000);

  it('bounds bodies with and without Content-Length, and decides batches', async () => {
    const server = await startServer(['--db', join(dir, 'bodies.db'), '--token', token]);
    const created = await api(server.url, 'POST', '/v1/sessions', {
      spec: bankSpec,
      tools: bankTools,
    });
    const id = created.body.id as string;
    /** A chunked request (no Content-Length): the body is counted as it streams. */
    const chunked = (path: string, parts: string[]) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(new TextEncoder().encode(part));
            controller.close();
          },
        }),
        duplex: 'half',
        signal: AbortSignal.timeout(10_000),
      } as RequestInit);
    const huge = await chunked(`/v1/sessions/${id}/check`, Array(40).fill('x'.repeat(64 * 1024)));
    expect(huge.status).toBe(413);
    expect(await huge.json()).toMatchObject({ code: 'body-too-large' });
    const small = await chunked(`/v1/sessions/${id}/check`, [
      '{"id":"s1","name":"BankCheck',
      'Balance","args":{}}',
    ]);
    expect(small.status).toBe(200);
    expect(await small.json()).toMatchObject({ id: 's1', action: 'run' });
    const batch = await api(server.url, 'POST', `/v1/sessions/${id}/checks`, {
      calls: [
        { id: 'b1', name: 'BankTransfer', args: { to: 'Alice', amount: 500 } },
        { id: 'b2', name: 'BankTransfer', args: { to: 'Mallory', amount: 5 } },
      ],
    });
    expect(batch.status).toBe(200);
    const decisions = batch.body.decisions as { id: string; action: string }[];
    expect(decisions.map((decision) => [decision.id, decision.action])).toEqual([
      ['b1', 'refuse'],
      ['b2', 'refuse'],
    ]);
    expect(await server.stop()).toBe(0);
  }, 60_000);
});

describe('intentguard serve and audit: usage', () => {
  it('refuses to start without a token', async () => {
    const result = await run(['serve', '--db', join(dir, 'x.db')], { env: {} });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('a bearer token is required');
  });

  it('rejects a bad --listen', async () => {
    const result = await run(['serve', '--listen', 'nowhere', '--token', token], { env: {} });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--listen');
  });

  it('audit verify: 1 naming the first bad entry after an edit, a deletion or a reordering; 2 for a missing file', async () => {
    const db = join(dir, 'audit.db');
    const server = await startServer(['--db', db, '--token', token]);
    const created = await api(server.url, 'POST', '/v1/sessions', {
      spec: bankSpec,
      tools: bankTools,
    });
    for (const callId of ['a', 'b', 'c', 'd']) {
      await api(server.url, 'POST', `/v1/sessions/${created.body.id as string}/check`, {
        id: callId,
        name: 'BankCheckBalance',
        args: {},
      });
    }
    await server.stop();
    expect((await run(['audit', 'verify', db])).code).toBe(0);
    const json = await run(['audit', 'verify', db, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, entries: 5 });
    const copies = ['edit', 'delete', 'reorder'].map((name) => {
      const path = join(dir, `${name}.db`);
      const source = new Database(db, { readonly: true });
      source.exec(`VACUUM INTO '${path}'`);
      source.close();
      return path;
    });
    const tamper = (path: string, sql: string) => {
      const handle = new Database(path);
      handle.exec(sql);
      handle.close();
    };
    tamper(
      copies[0] as string,
      `UPDATE audit SET body = replace(body, '"id":"b"', '"id":"z"') WHERE seq = 3`,
    );
    tamper(copies[1] as string, 'DELETE FROM audit WHERE seq = 2');
    tamper(
      copies[2] as string,
      'UPDATE audit SET seq = -1 WHERE seq = 4; UPDATE audit SET seq = 4 WHERE seq = 5; UPDATE audit SET seq = 5 WHERE seq = -1;',
    );
    const edited = await run(['audit', 'verify', copies[0] as string]);
    expect([edited.code, edited.stdout]).toEqual([
      1,
      `${copies[0]}: entry 3 was changed after it was written (its hash does not match its content)\n`,
    ]);
    const deleted = await run(['audit', 'verify', copies[1] as string]);
    expect(deleted.code).toBe(1);
    expect(deleted.stdout).toContain(': entry 3 follows entry 1: entry 2 deleted');
    const reordered = await run(['audit', 'verify', copies[2] as string]);
    expect(reordered.code).toBe(1);
    expect(reordered.stdout).toMatch(/: entry 4 (does not link|was changed)/);
    for (const output of [edited, deleted, reordered])
      expect(output.stdout).not.toMatch(/entry (\d+): entry \1 /);
    const missing = await run(['audit', 'verify', join(dir, 'none.db')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('there is no file');
  }, 60_000);
});
