import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type FakeLlmServer,
  startFakeLlmServer,
} from '../../../test/formalize/support/fake-llm-server.js';
import {
  agree,
  fenced,
  restaurantInstruction,
  restaurantSpec,
  serverModel,
} from '../../../test/formalize/support/fixtures.js';
import { verifyAuditFile } from '../../store/audit-file.js';
import { SqliteServiceStore } from '../../store/sqlite-service-store.js';
import { createServiceApp } from './app.js';

const root = new URL('../../../', import.meta.url).pathname;
const states = JSON.parse(
  readFileSync(join(root, 'examples/restaurant/states.json'), 'utf8'),
) as unknown;
const headers = { Authorization: 'Bearer alpha', 'Content-Type': 'application/json' };

let dir: string;
let server: FakeLlmServer;
let store: SqliteServiceStore;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'intentguard-http-instruction-'));
  store = new SqliteServiceStore(join(dir, 'service.db'));
  server = await startFakeLlmServer();
});
afterEach(async () => {
  store.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('sessions from an instruction (server started with a model)', () => {
  it('formalizes once, stores the spec, audits it, and restores from the stored spec', async () => {
    server.script('encode', fenced(restaurantSpec));
    server.script('check', agree);
    const { app } = createServiceApp({
      store,
      tokens: ['alpha'],
      model: serverModel(server),
      log: () => {},
    });
    const response = await app.request('/v1/sessions', {
      method: 'POST',
      headers,
      body: JSON.stringify({ instruction: restaurantInstruction, states, now: '2025-03-14T12:00' }),
    });
    expect(response.status).toBe(201);
    const session = (await response.json()) as { id: string; spec: string };
    expect(session.spec).toContain('Reserve');
    const finish = await app.request(`/v1/sessions/${session.id}/finish`, {
      method: 'POST',
      headers,
    });
    expect(
      ((await finish.json()) as { verdict: { reasons: { code: string }[] } }).verdict.reasons[0]
        ?.code,
    ).toBe('premature-finish');
    expect(server.of('encode')).toHaveLength(1);
    // A second service on the same file restores the session without calling the model.
    const again = createServiceApp({ store, tokens: ['alpha'], log: () => {} });
    expect(await again.sessions.restoreAll()).toEqual({ restored: 1, failed: 0 });
    const read = await again.app.request(`/v1/sessions/${session.id}`, { headers });
    expect(((await read.json()) as { spec: string }).spec).toBe(session.spec);
    expect(server.of('encode')).toHaveLength(1);
    expect(verifyAuditFile(join(dir, 'service.db'))).toMatchObject({ ok: true });
  });

  it('fails closed: without a valid spec the session refuses every call', async () => {
    server.script('encode', 'I cannot help with that.', 'No.', 'No.', 'No.');
    server.script('check', agree, agree, agree, agree);
    const { app } = createServiceApp({
      store,
      tokens: ['alpha'],
      model: serverModel(server),
      log: () => {},
    });
    const response = await app.request('/v1/sessions', {
      method: 'POST',
      headers,
      body: JSON.stringify({ instruction: restaurantInstruction, states }),
    });
    expect(response.status).toBe(201);
    const session = (await response.json()) as { id: string; spec: string | null };
    expect(session.spec).toBeNull();
    const check = await app.request(`/v1/sessions/${session.id}/check`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ id: 'c1', name: 'Reserve', args: {} }),
    });
    const decision = (await check.json()) as {
      action: string;
      verdict: { reasons: { code: string }[] };
    };
    expect(decision.action).toBe('refuse');
    expect(decision.verdict.reasons[0]?.code).toBe('no-spec');
  });
});
