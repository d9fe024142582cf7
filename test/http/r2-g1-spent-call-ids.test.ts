import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callService, killAll, startServer } from './server-process.js';

/**
 * G1 through the real `intentguard serve` process, the review's curl sequence: a call
 * that failed and was rolled back is not answered `run` again under its id (the host's
 * retry would pay without a commit); the retry under a new id is checked and committed;
 * a completed call's id stays spent, across a restart too.
 */

const token = 'review-token-0123456789abcdef';
const tools = {
  tools: [
    {
      name: 'Pay',
      description: 'Pay someone.',
      annotations: { destructiveHint: true },
      inputSchema: {
        type: 'object',
        properties: { payee: { type: 'string' }, amount: { type: 'number' } },
        required: ['payee', 'amount'],
      },
    },
  ],
};
const spec = 'Pay(payee = "Bob", amount = 250) -> Paid\nPaid -> Done\n';
const pay = { name: 'Pay', args: { payee: 'Bob', amount: 250 } };

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'intentguard-g1-'));
});
afterEach(killAll);
afterAll(async () => {
  await killAll();
  rmSync(dir, { recursive: true, force: true });
});

/** The fields of the service's answers this test reads. */
interface Answer {
  readonly id?: string;
  readonly action?: string;
  readonly ok?: boolean;
  readonly status?: { readonly achieved?: Record<string, number> };
  readonly verdict?: { readonly reasons: ReadonlyArray<Record<string, unknown>> };
}

function post(url: string, path: string, body: unknown) {
  return callService<Answer>(url, token, 'POST', `/v1/sessions${path}`, body);
}

describe('G1: serve never answers run twice for one call id', () => {
  it('refuses the retry of a rolled-back id, decides a new id, and keeps spent ids spent after a restart', async () => {
    const db = join(dir, 'rerun.db');
    const server = await startServer(['--db', db], { INTENTGUARD_TOKEN: token });
    const created = await post(server.url, '', { spec, tools, now: '2025-06-02T09:00' });
    expect(created.status).toBe(201);
    const sid = `/${created.body.id as string}`;

    expect((await post(server.url, `${sid}/check`, { id: 't-1', ...pay })).body.action).toBe('run');
    // A lost answer: asking again while the call is pending gives the same decision.
    expect((await post(server.url, `${sid}/check`, { id: 't-1', ...pay })).body.action).toBe('run');
    expect(
      (await post(server.url, `${sid}/result`, { id: 't-1', error: 'gateway timeout' })).body.ok,
    ).toBe(true);

    const retried = await post(server.url, `${sid}/check`, { id: 't-1', ...pay });
    expect(retried.status).toBe(200);
    expect(retried.body.action).toBe('refuse');
    expect(retried.body.verdict?.reasons[0]).toMatchObject({
      code: 'invalid-proposal',
      expected: 'a new call id',
      actual: 'rolled back',
    });
    const late = await post(server.url, `${sid}/result`, { id: 't-1', output: { status: 'paid' } });
    expect(late.body.status?.achieved).toEqual({});

    // The retry under a new id is checked and committed again.
    expect((await post(server.url, `${sid}/check`, { id: 't-2', ...pay })).body.action).toBe('run');
    const paid = await post(server.url, `${sid}/result`, { id: 't-2', output: { status: 'paid' } });
    expect(paid.body.status?.achieved).toEqual({ Paid: 1 });
    // A second payment under a third id is what the spec says: refused.
    const third = await post(server.url, `${sid}/check`, { id: 't-3', ...pay });
    expect(third.body.action).toBe('refuse');
    expect(third.body.verdict?.reasons[0]?.code).toBe('already-achieved');
    // Nor does an approval turn a spent id into run.
    const approved = await post(server.url, `${sid}/approve`, { id: 't-2', approved: true });
    expect(approved.body.action).toBe('refuse');
    expect(approved.body.verdict?.reasons[0]?.actual).toBe('already executed');

    await server.kill();
    const again = await startServer(['--db', db], { INTENTGUARD_TOKEN: token });
    expect(again.stderr()).toContain('1 open session restored');
    for (const [id, actual] of [
      ['t-1', 'rolled back'],
      ['t-2', 'already executed'],
    ]) {
      const answer = await post(again.url, `${sid}/check`, { id, ...pay });
      expect(answer.body.action).toBe('refuse');
      expect(answer.body.verdict?.reasons[0]?.actual).toBe(actual);
    }
  });
});
