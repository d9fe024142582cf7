import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifyAuditFile } from '../../store/audit-file.js';
import { SqliteServiceStore } from '../../store/sqlite-service-store.js';
import { createServiceApp } from './app.js';

const root = new URL('../../../', import.meta.url).pathname;
const bankSpec = readFileSync(join(root, 'examples/bank-transfer/spec.intent'), 'utf8');
const bankTools = JSON.parse(
  readFileSync(join(root, 'examples/bank-transfer/tools.json'), 'utf8'),
) as unknown;

let dir: string;
let dbPath: string;
let store: SqliteServiceStore;
let logged: string[];

function app(options: { rateLimit?: number; corsOrigin?: string; maxBodyBytes?: number } = {}) {
  return createServiceApp({
    store,
    tokens: ['alpha', 'beta'],
    log: (line) => logged.push(line),
    ...options,
  }).app;
}

function call(
  service: ReturnType<typeof app>,
  method: string,
  path: string,
  body?: unknown,
  token: string | null = 'alpha',
  headers: Record<string, string> = {},
) {
  return service.request(path, {
    method,
    headers: {
      ...(token !== null ? { Authorization: `Bearer ${token}` } : {}),
      'Content-Type': 'application/json',
      ...headers,
    },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
}

async function bankSession(service: ReturnType<typeof app>, token = 'alpha'): Promise<string> {
  const response = await call(
    service,
    'POST',
    '/v1/sessions',
    { spec: bankSpec, tools: bankTools },
    token,
  );
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'intentguard-http-'));
  dbPath = join(dir, 'service.db');
  store = new SqliteServiceStore(dbPath);
  logged = [];
});

afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the service API', () => {
  it('guards the bank transfer: refuse, run, ask, approve, result, finish', async () => {
    const service = app();
    const id = await bankSession(service);
    const check = async (callId: string, name: string, args: unknown) =>
      (await (
        await call(service, 'POST', `/v1/sessions/${id}/check`, { id: callId, name, args })
      ).json()) as {
        action: string;
        verdict: { decision: string };
      };
    expect((await check('c1', 'BankTransfer', { to: 'Alice', amount: 500 })).action).toBe('refuse');
    expect((await check('c2', 'BankCheckBalance', {})).action).toBe('run');
    const result = await call(service, 'POST', `/v1/sessions/${id}/result`, {
      id: 'c2',
      output: { balance: 1500 },
    });
    expect(((await result.json()) as { ok: boolean }).ok).toBe(true);
    expect((await check('c3', 'BankTransfer', { to: 'Alice', amount: 900 })).verdict.decision).toBe(
      'reject',
    );
    expect((await check('c4', 'BankTransfer', { to: 'Alice', amount: 500 })).action).toBe('ask');
    const approvals = (await (await call(service, 'GET', '/v1/approvals')).json()) as {
      approvals: { session: string; id: string; prompt: string }[];
    };
    expect(approvals.approvals).toHaveLength(1);
    expect(approvals.approvals[0]).toMatchObject({ session: id, id: 'c4' });
    expect(approvals.approvals[0]?.prompt).toContain('Alice');
    // Another token sees neither the approval nor the session.
    expect(
      (
        (await (await call(service, 'GET', '/v1/approvals', undefined, 'beta')).json()) as {
          approvals: [];
        }
      ).approvals,
    ).toEqual([]);
    const approved = await call(service, 'POST', `/v1/sessions/${id}/approve`, {
      id: 'c4',
      approved: true,
    });
    expect(((await approved.json()) as { action: string }).action).toBe('run');
    // Same id, same call: the same decision.
    expect((await check('c4', 'BankTransfer', { to: 'Alice', amount: 500 })).action).toBe('run');
    const reused = await call(service, 'POST', `/v1/sessions/${id}/check`, {
      id: 'c2',
      name: 'BankTransfer',
      args: { to: 'Mallory', amount: 1 },
    });
    expect(((await reused.json()) as { action: string }).action).toBe('refuse');
    const audited = store.database
      .prepare("SELECT body FROM audit WHERE kind = 'decision' ORDER BY seq DESC LIMIT 1")
      .get() as { body: string };
    expect(audited.body).toContain('Mallory');
    await call(service, 'POST', `/v1/sessions/${id}/result`, { id: 'c4', output: {} });
    const finish = await call(service, 'POST', `/v1/sessions/${id}/finish`);
    expect(((await finish.json()) as { action: string }).action).toBe('run');
    const session = (await (await call(service, 'GET', `/v1/sessions/${id}`)).json()) as {
      finished: boolean;
      decisions: { id: string; action: string }[];
    };
    expect(session.finished).toBe(true);
    expect(session.decisions.map((decision) => [decision.id, decision.action])).toEqual([
      ['c1', 'refuse'],
      ['c2', 'run'],
      ['c3', 'refuse'],
      ['c4', 'run'],
    ]);
    const after = await call(service, 'POST', `/v1/sessions/${id}/check`, {
      id: 'c5',
      name: 'BankCheckBalance',
    });
    expect(after.status).toBe(409);
    expect(await after.json()).toMatchObject({ code: 'session-finished' });
    const audit = verifyAuditFile(dbPath);
    expect(audit).toMatchObject({ ok: true });
    expect(audit.entries).toBeGreaterThanOrEqual(9);
  });

  it("serves the approvals page with a strict content security policy, and lists the token's sessions", async () => {
    const service = app();
    const page = await service.request('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(
      /default-src 'none'; script-src 'nonce-/,
    );
    expect(await page.text()).toContain('pending approvals');
    const id = await bankSession(service);
    await bankSession(service, 'beta');
    const list = (await (await call(service, 'GET', '/v1/sessions')).json()) as {
      sessions: { id: string }[];
    };
    expect(list.sessions.map((session) => session.id)).toEqual([id]);
  });

  it('lists the sessions of the file page by page, after a restart too, and caps open ones per token', async () => {
    const first = app();
    const ids = [await bankSession(first), await bankSession(first), await bankSession(first)];
    await bankSession(first, 'beta');
    store.close();
    store = new SqliteServiceStore(dbPath);
    const restarted = createServiceApp({
      store,
      tokens: ['alpha', 'beta'],
      log: (line) => logged.push(line),
      maxOpenSessions: 3,
    }).app;
    const listed: string[] = [];
    let after = '';
    for (let page = 0; page < 3; page++) {
      const body = (await (
        await call(restarted, 'GET', `/v1/sessions?limit=1${after ? `&after=${after}` : ''}`)
      ).json()) as { sessions: { id: string; status: object }[]; next?: string };
      expect(body.sessions).toHaveLength(1);
      expect(body.sessions[0]?.status).toBeDefined();
      listed.push(...body.sessions.map((session) => session.id));
      after = body.next ?? '';
      expect(after === '').toBe(page === 2);
    }
    expect(listed).toEqual([...ids].reverse());
    const over = await call(restarted, 'POST', '/v1/sessions', {
      spec: bankSpec,
      tools: bankTools,
    });
    expect(over.status).toBe(429);
    expect(((await over.json()) as { code: string }).code).toBe('too-many-sessions');
    expect((await call(restarted, 'GET', '/v1/sessions?limit=500')).status).toBe(400);
  });

  it('serves its OpenAPI document without a token', async () => {
    const response = await app().request('/v1/openapi.json');
    expect(response.status).toBe(200);
    const doc = (await response.json()) as {
      openapi: string;
      paths: Record<string, unknown>;
      components: { schemas: Record<string, { properties?: object }> };
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toContain('/v1/sessions/{id}/check');
    expect(Object.keys(doc.components.schemas.Check?.properties ?? {})).toEqual([
      'id',
      'name',
      'args',
      'updates',
      'objective',
    ]);
  });
});

describe('bad input', () => {
  it('answers 4xx problems, never a stack', async () => {
    const service = app({ maxBodyBytes: 10_000 });
    const id = await bankSession(service);
    const cases: [string, string, unknown, number, string][] = [
      ['POST', '/v1/sessions', '{"spec": ', 400, 'malformed-json'],
      ['POST', '/v1/sessions', { spec: 42, tools: bankTools }, 400, 'invalid-request'],
      ['POST', '/v1/sessions', { spec: bankSpec }, 400, 'invalid-request'],
      ['POST', '/v1/sessions', { spec: 'Nope(', tools: bankTools }, 422, 'invalid-spec'],
      ['POST', '/v1/sessions', { spec: bankSpec, tools: { tools: 'x' } }, 422, 'invalid-schema'],
      ['POST', '/v1/sessions', { instruction: 'pay Alice', tools: bankTools }, 422, 'no-model'],
      ['POST', `/v1/sessions/${id}/check`, { id: 7, name: 'BankTransfer' }, 400, 'invalid-request'],
      [
        'POST',
        `/v1/sessions/${id}/check`,
        { id: 'x', name: 'BankTransfer', extra: 1 },
        400,
        'invalid-request',
      ],
      ['POST', `/v1/sessions/${id}/check`, [], 400, 'invalid-request'],
      [
        'POST',
        `/v1/sessions/${id}/check`,
        { id: '#finish', name: 'BankTransfer' },
        400,
        'invalid-request',
      ],
      [
        'POST',
        '/v1/sessions/nope/check',
        { id: 'x', name: 'BankTransfer' },
        404,
        'unknown-session',
      ],
      ['GET', '/v1/sessions/nope', undefined, 404, 'unknown-session'],
      ['POST', `/v1/sessions/${id}/approve`, { id: 'never', approved: true }, 404, 'unknown-call'],
      [
        'POST',
        `/v1/sessions/${id}/approve`,
        { id: 'never', approved: 'yes' },
        400,
        'invalid-request',
      ],
      [
        'POST',
        `/v1/sessions/${id}/result`,
        { id: 'never', output: 1, error: 2 },
        400,
        'invalid-request',
      ],
      ['POST', `/v1/sessions/${id}/finish`, '{"x":1}', 400, 'invalid-request'],
      [
        'POST',
        `/v1/sessions/${id}/check`,
        { id: 'big', name: 'BankTransfer', args: { to: 'x'.repeat(20_000) } },
        413,
        'body-too-large',
      ],
      ['DELETE', `/v1/sessions/${id}`, undefined, 404, 'not-found'],
    ];
    for (const [method, path, body, status, code] of cases) {
      const response = await call(service, method, path, body);
      const text = await response.text();
      expect(
        response.status,
        `${method} ${path} ${JSON.stringify(body)?.slice(0, 60)}: ${text}`,
      ).toBe(status);
      expect(JSON.parse(text), text).toMatchObject({ code });
      expect(text).not.toMatch(/\bat .*\.ts:\d+/);
    }
  });

  it('survives hostile JSON: deeply nested arguments are refused, not a crash', async () => {
    const service = app();
    const id = await bankSession(service);
    const deep = `{"id":"deep","name":"BankTransfer","args":{"to":${'['.repeat(200_000)}${']'.repeat(200_000)},"amount":1}}`;
    const response = await call(service, 'POST', `/v1/sessions/${id}/check`, deep);
    expect(response.status).toBeLessThan(500);
    const decision = (await response.json()) as { action?: string; code?: string };
    expect(decision.action ?? decision.code).not.toBe('run');
    const observe = await call(
      service,
      'POST',
      `/v1/sessions/${id}/observe`,
      `{"updates":${'['.repeat(200_000)}${']'.repeat(200_000)}}`,
    );
    expect(observe.status).not.toBe(200);
    expect(await observe.text()).not.toMatch(/\bat .*\.ts:\d+/);
    const next = await call(service, 'POST', `/v1/sessions/${id}/check`, {
      id: 'ok',
      name: 'BankCheckBalance',
      args: {},
    });
    expect(((await next.json()) as { action: string }).action).toBe('run');
  });

  it('requires a valid bearer token and scopes sessions to it', async () => {
    const service = app();
    const id = await bankSession(service);
    for (const token of [null, 'wrong', '']) {
      const response = await call(service, 'GET', `/v1/sessions/${id}`, undefined, token);
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ code: 'unauthorized' });
    }
    const other = await call(service, 'GET', `/v1/sessions/${id}`, undefined, 'beta');
    expect(other.status).toBe(404);
    const otherCheck = await call(
      service,
      'POST',
      `/v1/sessions/${id}/check`,
      { id: 'a', name: 'BankCheckBalance' },
      'beta',
    );
    expect(otherCheck.status).toBe(404);
    expect((await call(service, 'GET', `/v1/sessions/${id}`)).status).toBe(200);
  });

  it('limits the rate per token', async () => {
    const service = app({ rateLimit: 5 });
    const statuses: number[] = [];
    for (let index = 0; index < 15; index++)
      statuses.push((await call(service, 'GET', '/v1/approvals')).status);
    expect(statuses.slice(0, 10).every((status) => status === 200)).toBe(true);
    expect(statuses).toContain(429);
    // Another token has its own bucket.
    expect((await call(service, 'GET', '/v1/approvals', undefined, 'beta')).status).toBe(200);
  });

  it('sends CORS headers only when configured', async () => {
    const off = await call(app(), 'GET', '/v1/approvals', undefined, 'alpha', {
      Origin: 'https://example.com',
    });
    expect(off.headers.get('access-control-allow-origin')).toBeNull();
    const on = await call(
      app({ corsOrigin: 'https://example.com' }),
      'GET',
      '/v1/approvals',
      undefined,
      'alpha',
      {
        Origin: 'https://example.com',
      },
    );
    expect(on.headers.get('access-control-allow-origin')).toBe('https://example.com');
  });

  it('refuses a check when the service fails (fail closed) and logs it', async () => {
    const service = app();
    const id = await bankSession(service);
    store.database.exec('DROP TABLE journal');
    const response = await call(service, 'POST', `/v1/sessions/${id}/check`, {
      id: 'c1',
      name: 'BankCheckBalance',
      args: {},
    });
    expect(response.status).toBe(200);
    const decision = (await response.json()) as {
      action: string;
      verdict: { reasons: { code: string }[] };
    };
    expect(decision.action).toBe('refuse');
    expect(decision.verdict.reasons[0]?.code).toBe('internal-error');
    expect(logged.join('\n')).toContain('refused');
  });
});

describe('the audit log', () => {
  async function filledLog(): Promise<void> {
    const service = app();
    const id = await bankSession(service);
    for (let index = 0; index < 4; index++) {
      await call(service, 'POST', `/v1/sessions/${id}/check`, {
        id: `c${index}`,
        name: 'BankCheckBalance',
        args: {},
      });
    }
    store.close();
  }

  function tamper(sql: string): void {
    const db = new Database(dbPath);
    db.exec(sql);
    db.close();
  }

  it('verifies an intact log', async () => {
    await filledLog();
    expect(verifyAuditFile(dbPath)).toMatchObject({ ok: true, entries: 5 });
  });

  it('detects an edit', async () => {
    await filledLog();
    tamper(`UPDATE audit SET body = replace(body, 'c2', 'c9') WHERE seq = 4`);
    expect(verifyAuditFile(dbPath)).toMatchObject({ ok: false, seq: 4 });
  });

  it('detects a deletion, in the middle and at the end', async () => {
    await filledLog();
    tamper('DELETE FROM audit WHERE seq = 3');
    expect(verifyAuditFile(dbPath)).toMatchObject({ ok: false, seq: 4 });
    tamper('DELETE FROM audit WHERE seq >= 3');
    expect(verifyAuditFile(dbPath)).toMatchObject({ ok: false, seq: 3 });
  });

  it('detects a reordering', async () => {
    await filledLog();
    tamper(
      `UPDATE audit SET seq = -1 WHERE seq = 2; UPDATE audit SET seq = 2 WHERE seq = 3; UPDATE audit SET seq = 3 WHERE seq = -1;`,
    );
    expect(verifyAuditFile(dbPath)).toMatchObject({ ok: false, seq: 2 });
  });
});

describe('batches and group commit', () => {
  type Decision = { id: string; action: string; verdict: { reasons: { code: string }[] } };
  const calls = [
    { id: 'b1', name: 'BankTransfer', args: { to: 'Alice', amount: 500 } },
    { id: 'b2', name: 'BankCheckBalance', args: {} },
    { id: 'b3', name: 'BankCheckBalance', args: {} },
  ];

  it('decides a batch in order, exactly as the same calls one by one, and journals it', async () => {
    const service = app();
    const batched = await bankSession(service);
    const single = await bankSession(service);
    const response = await call(service, 'POST', `/v1/sessions/${batched}/checks`, { calls });
    expect(response.status).toBe(200);
    const { decisions } = (await response.json()) as { decisions: Decision[] };
    const oneByOne: Decision[] = [];
    for (const each of calls) {
      const answer = await call(service, 'POST', `/v1/sessions/${single}/check`, each);
      oneByOne.push((await answer.json()) as Decision);
    }
    expect(decisions.map((decision) => decision.id)).toEqual(['b1', 'b2', 'b3']);
    expect(decisions.map((decision) => decision.action).slice(0, 2)).toEqual(['refuse', 'run']);
    expect(decisions).toEqual(oneByOne);
    // Committed before the answer: a service over the same file restores the same decisions.
    store.close();
    store = new SqliteServiceStore(dbPath);
    const restored = app();
    const session = (await (await call(restored, 'GET', `/v1/sessions/${batched}`)).json()) as {
      decisions: Decision[];
    };
    expect(session.decisions.map((decision) => [decision.id, decision.action])).toEqual(
      oneByOne.map((decision) => [decision.id, decision.action]),
    );
    expect(verifyAuditFile(dbPath)).toMatchObject({ ok: true });
  });

  it('refuses malformed batches with a problem, deciding nothing', async () => {
    const service = app();
    const id = await bankSession(service);
    const bad: [unknown, string][] = [
      [{ calls: [] }, 'calls'],
      [{ calls: [calls[1], { ...calls[2], id: 'b2' }] }, 'own id'],
      [{ calls: Array.from({ length: 257 }, (_, i) => ({ ...calls[1], id: `x${i}` })) }, 'calls'],
      [{ calls: [{ ...calls[1], id: '#finish' }] }, '#finish'],
      [{ calls: [calls[1]], extra: true }, 'extra'],
      [calls, 'expected object'],
    ];
    for (const [body, mention] of bad) {
      const response = await call(service, 'POST', `/v1/sessions/${id}/checks`, body);
      const problem = (await response.json()) as { code: string; message: string };
      expect(response.status, JSON.stringify(problem)).toBe(400);
      expect(problem.code).toBe('invalid-request');
      expect(problem.message).toContain(mention);
    }
    const session = (await (await call(service, 'GET', `/v1/sessions/${id}`)).json()) as {
      decisions: unknown[];
    };
    expect(session.decisions).toEqual([]);
  });

  it('commits checks that arrive together in one transaction', async () => {
    const service = app();
    const ids = await Promise.all(Array.from({ length: 6 }, () => bankSession(service)));
    const before = store.groupCommits;
    const answers = await Promise.all(
      ids.map((id, index) =>
        call(service, 'POST', `/v1/sessions/${id}/check`, { ...calls[1], id: `g${index}` }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(ids.map(() => 200));
    // Six checks, each journaled and audited before its answer — in fewer commits.
    expect(store.groupCommits - before).toBeLessThan(ids.length);
    expect(verifyAuditFile(dbPath)).toMatchObject({ ok: true, entries: 12 });
  });

  it('when a group commit fails, refuses every call of the group and keeps none of them', async () => {
    const service = app();
    const first = await bankSession(service);
    const second = await bankSession(service);
    store.database.exec(
      "CREATE TRIGGER poison BEFORE INSERT ON audit WHEN NEW.body LIKE '%poison%' BEGIN SELECT RAISE(ABORT, 'the disk is full'); END",
    );
    const json = async (answer: Response | Promise<Response>) => (await answer).json();
    const [fine, poisoned] = (await Promise.all([
      json(call(service, 'POST', `/v1/sessions/${first}/check`, { ...calls[1], id: 'ok' })),
      json(
        call(service, 'POST', `/v1/sessions/${second}/checks`, {
          calls: [{ ...calls[1], id: 'p1', args: { note: 'poison' } }, calls[2]],
        }),
      ),
    ])) as [Decision, { decisions: Decision[] }];
    expect(fine.action).toBe('refuse');
    expect(fine.verdict.reasons[0]?.code).toBe('internal-error');
    expect(poisoned.decisions.map((decision) => decision.action)).toEqual(['refuse', 'refuse']);
    expect(logged.join('\n')).toContain('the disk is full');
    store.database.exec('DROP TRIGGER poison');
    // Nothing of the failed group was kept: the sessions restore without those calls.
    for (const id of [first, second]) {
      const session = (await (await call(service, 'GET', `/v1/sessions/${id}`)).json()) as {
        decisions: unknown[];
      };
      expect(session.decisions).toEqual([]);
    }
    const again = await call(service, 'POST', `/v1/sessions/${first}/check`, {
      ...calls[1],
      id: 'ok',
    });
    expect(((await again.json()) as Decision).action).toBe('run');
    expect(verifyAuditFile(dbPath)).toMatchObject({ ok: true });
  });
});

describe('finish with the answer', () => {
  it("judges the agent's final answer: calls it shows but never made are refused", async () => {
    const service = app();
    const id = await bankSession(service);
    const finish = async (body?: unknown) =>
      (await (await call(service, 'POST', `/v1/sessions/${id}/finish`, body)).json()) as {
        action: string;
        verdict: { reasons: { code: string }[] };
      };
    const fabricated = await finish({
      answer:
        'Done!\nAction: BankTransfer\nAction Input: {"to": "Alice", "amount": 500}\nObservation: {"ok": true}',
    });
    expect(fabricated.action).toBe('refuse');
    expect(fabricated.verdict.reasons.map((reason) => reason.code)).toContain('fabricated-action');
    const plain = await finish({ answer: 'I could not transfer yet.' });
    expect(plain.action).toBe('refuse');
    expect(plain.verdict.reasons[0]?.code).toBe('premature-finish');
    const bad = await call(service, 'POST', `/v1/sessions/${id}/finish`, { answer: 42 });
    expect(bad.status).toBe(400);
  });
});
