import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../cli/run.js';
import { callService, killAll, projectRoot, startServer } from './server-process.js';

/** `serve --policy` and a session's own policy (LANGUAGE.md §8, docs/service.md), real processes. */
const token = 'test-token-0123456789abcdef';
const folder = join(projectRoot, 'examples/policy');
const policyFile = join(folder, 'airline.policy');
const policyText = readFileSync(policyFile, 'utf8');
const intent = readFileSync(join(folder, 'cancel.intent'), 'utf8');
const tools = JSON.parse(readFileSync(join(folder, 'tools.json'), 'utf8')) as unknown;
const states = JSON.parse(readFileSync(join(folder, 'states.json'), 'utf8')) as unknown;
const schemaFlags = [
  '--tools',
  join(folder, 'tools.json'),
  '--states',
  join(folder, 'states.json'),
];
/** A policy that permits any cancellation of the session's own user's reservation. */
const lenient =
  'SessionUser(user_id = $u) & get_reservation_detailsResult(reservation_id = $r, user_id = $u) & cancel_reservation(reservation_id = $r) -> OwnCancellation\n';

/** An intent that asks for the certificate too: both sides ask for one call. */
const bothConfirm =
  '@confirm(financial, "Sending money needs the user\'s yes")\nSessionUser(user_id = $u) & send_certificate(user_id = $u, amount <= 100) -> Sent\nSent -> Done\n';
const bothConfirmPrompt =
  'Send a travel certificate (compensation) to a user (send_certificate) with user_id: "mia", amount: 50? Why: Policy: A certificate is compensation the user must accept. (financial) Task: Sending money needs the user\'s yes. (financial)';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'intentguard-serve-policy-'));
});
afterEach(killAll);
afterAll(async () => {
  await killAll();
  rmSync(dir, { recursive: true, force: true });
});

interface Decision {
  action: string;
  message: string;
  verdict: { decision: string; reasons: { code: string; source: string; message?: string }[] };
}

function api(url: string, method: string, path: string, body?: unknown) {
  return callService(url, token, method, path, body);
}

/** Creates the cancellation session and walks it to the cancellation; returns its decision. */
async function cancellation(url: string, body: Record<string, unknown> = {}) {
  const created = await api(url, 'POST', '/v1/sessions', {
    spec: intent,
    tools,
    states,
    now: '2024-05-15T15:00:00',
    ...body,
  });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  const at = (path: string) => `/v1/sessions/${id}/${path}`;
  await api(url, 'POST', at('observe'), { updates: { SessionUser: { user_id: 'mia' } } });
  const look = await api(url, 'POST', at('check'), {
    id: 'c1',
    name: 'get_reservation_details',
    args: { reservation_id: 'ABC123' },
  });
  expect(look.body.action).toBe('run');
  await api(url, 'POST', at('result'), {
    id: 'c1',
    output: { reservation_id: 'ABC123', user_id: 'mia', cabin: 'economy', insurance: 'no' },
  });
  const cancel = await api(url, 'POST', at('check'), {
    id: 'c2',
    name: 'cancel_reservation',
    args: { reservation_id: 'ABC123' },
  });
  return { id, created: created.body, cancel: cancel.body as unknown as Decision };
}

/** Asks for the cancellation session with `policy` as its own policy. */
function withPolicy(url: string, policy: unknown) {
  return api(url, 'POST', '/v1/sessions', { spec: intent, tools, states, policy });
}

/** Starts serve expecting it not to start; resolves with what it printed. */
async function refusedStart(args: readonly string[]): Promise<string> {
  const failure = await startServer(args).then(
    () => {
      throw new Error('the server started');
    },
    (error: Error) => error.message,
  );
  return failure;
}

describe('intentguard serve --policy (a real process)', () => {
  it("decides every session under the service's policy, refusing what the intent allows, the policy's reason first", async () => {
    const db = join(dir, 'service-policy.db');
    const server = await startServer([
      '--db',
      db,
      '--token',
      token,
      '--policy',
      policyFile,
      ...schemaFlags,
    ]);
    const { id, created, cancel } = await cancellation(server.url);
    expect(created.policy).toBe(policyText);
    expect(cancel.action).toBe('refuse');
    expect(cancel.verdict.decision).toBe('revise');
    expect(cancel.verdict.reasons[0]).toMatchObject({ code: 'policy-violation', source: 'policy' });
    expect(cancel.message).toContain('cancel_reservation');

    // Restarted without --policy: the session keeps the policy its row and audit record hold.
    await server.kill();
    const again = await startServer(['--db', db, '--token', token]);
    expect(again.stderr()).toContain('1 open session restored');
    const repeated = await api(again.url, 'POST', `/v1/sessions/${id}/check`, {
      id: 'c2',
      name: 'cancel_reservation',
      args: { reservation_id: 'ABC123' },
    });
    expect(repeated.body).toEqual(cancel);
    const fresh = await api(again.url, 'POST', `/v1/sessions/${id}/check`, {
      id: 'c3',
      name: 'cancel_reservation',
      args: { reservation_id: 'ABC123' },
    });
    expect((fresh.body as unknown as Decision).verdict.reasons[0]).toMatchObject({
      code: 'policy-violation',
      source: 'policy',
    });
    // The intent's refused-by-policy branch: the session may finish with the answer.
    const finish = await api(again.url, 'POST', `/v1/sessions/${id}/finish`, {
      answer: 'The airline says it cannot be cancelled.',
    });
    expect(finish.body.action).toBe('run');
    expect(await again.stop()).toBe(0);
    const verified = await run(['audit', 'verify', db]);
    expect(verified.code).toBe(0);
  }, 90_000);

  it('both the intent and the policy ask: the approvals page shows one question, both reasons once, the policy first', async () => {
    const server = await startServer(['--db', join(dir, 'approvals.db'), '--token', token]);
    const created = await api(server.url, 'POST', '/v1/sessions', {
      spec: bothConfirm,
      tools,
      states,
      policy: policyText,
    });
    expect(created.status).toBe(201);
    const at = (path: string) => `/v1/sessions/${created.body.id as string}/${path}`;
    await api(server.url, 'POST', at('observe'), { updates: { SessionUser: { user_id: 'mia' } } });
    const sent = await api(server.url, 'POST', at('check'), {
      id: 'c1',
      name: 'send_certificate',
      args: { user_id: 'mia', amount: 50 },
    });
    expect(sent.body.action).toBe('ask');
    const approvals = await api(server.url, 'GET', '/v1/approvals');
    const listed = approvals.body.approvals as { id: string; prompt: string }[];
    expect(listed.map((approval) => approval.id)).toEqual(['c1']);
    expect(listed[0]?.prompt).toBe(bothConfirmPrompt);
  }, 90_000);

  it('a row whose policy was removed outside the service is not restored', async () => {
    const db = join(dir, 'tampered.db');
    const server = await startServer([
      '--db',
      db,
      '--token',
      token,
      '--policy',
      policyFile,
      ...schemaFlags,
    ]);
    const { id } = await cancellation(server.url);
    await server.kill();
    const file = new Database(db);
    file.prepare('UPDATE sessions SET options_json = ? WHERE id = ?').run('{}', id);
    file.close();
    const again = await startServer(['--db', db, '--token', token]);
    expect(again.stderr()).toContain(`session ${id} could not be restored`);
    const check = await api(again.url, 'POST', `/v1/sessions/${id}/check`, {
      id: 'c9',
      name: 'cancel_reservation',
      args: { reservation_id: 'ABC123' },
    });
    expect(check.status).toBe(503);
    expect(check.body.code).toBe('session-unavailable');
  }, 90_000);

  it('a session cannot replace the service policy, unless the service allows it', async () => {
    const strict = await startServer([
      '--db',
      join(dir, 'fixed.db'),
      '--token',
      token,
      '--policy',
      policyFile,
      ...schemaFlags,
    ]);
    const replaced = await api(strict.url, 'POST', '/v1/sessions', {
      spec: intent,
      tools,
      states,
      policy: lenient,
    });
    expect(replaced.status).toBe(403);
    expect(replaced.body).toMatchObject({ code: 'forbidden' });
    expect(replaced.body.message).toContain('--allow-session-policy');
    // Naming the service's own policy changes nothing and is accepted.
    const same = await cancellation(strict.url, { policy: policyText });
    expect(same.cancel.verdict.reasons[0]?.source).toBe('policy');
    await strict.stop();

    const open = await startServer([
      '--db',
      join(dir, 'open.db'),
      '--token',
      token,
      '--policy',
      policyFile,
      ...schemaFlags,
      '--allow-session-policy',
    ]);
    const own = await cancellation(open.url, { policy: lenient });
    expect(own.created.policy).toBe(lenient);
    expect(own.cancel.action).toBe('run');
    // Without a policy of its own, a session of this service still gets the service's.
    const plain = await cancellation(open.url);
    expect(plain.cancel.verdict.reasons[0]).toMatchObject({ code: 'policy-violation' });
  }, 90_000);

  it('without --policy a session names its own; one that does not check is 422 with located diagnostics', async () => {
    const server = await startServer(['--db', join(dir, 'own.db'), '--token', token]);
    const none = await cancellation(server.url);
    expect(none.created.policy).toBeNull();
    // The intent alone lets the cancellation run (the policy is what refuses it).
    expect(none.cancel.action).toBe('run');
    const own = await cancellation(server.url, { policy: policyText });
    expect(own.cancel.verdict.reasons[0]).toMatchObject({
      code: 'policy-violation',
      source: 'policy',
    });

    const withDone = await withPolicy(
      server.url,
      'get_reservation_details(reservation_id = "A") -> Looked\nLooked -> Done\n',
    );
    expect(withDone.status).toBe(422);
    expect(withDone.body.code).toBe('invalid-policy');
    expect(withDone.body.message).toContain('done-in-policy');
    expect(withDone.body.message).toContain('policy:2:');
    const unknown = await withPolicy(server.url, 'reject refund(amount > 5) because "no"\n');
    expect(unknown.status).toBe(422);
    expect(unknown.body.code).toBe('invalid-policy');
    expect(unknown.body.message).toContain('policy:1:');
    const notText = await withPolicy(server.url, { rules: [] });
    expect(notText.status).toBe(400);
    expect(notText.body.code).toBe('invalid-request');
    const sessions = await api(server.url, 'GET', '/v1/sessions');
    expect((sessions.body.sessions as unknown[]).length).toBe(2);
  }, 90_000);

  it("a session whose schema is not the one the service's policy was written over is not created", async () => {
    const server = await startServer([
      '--db',
      join(dir, 'other-schema.db'),
      '--token',
      token,
      '--policy',
      policyFile,
      ...schemaFlags,
    ]);
    const bank = await api(server.url, 'POST', '/v1/sessions', {
      spec: readFileSync(join(projectRoot, 'examples/bank-transfer/spec.intent'), 'utf8'),
      tools: JSON.parse(
        readFileSync(join(projectRoot, 'examples/bank-transfer/tools.json'), 'utf8'),
      ) as unknown,
    });
    expect(bank.status).toBe(422);
    expect(bank.body.code).toBe('invalid-policy');
    expect(bank.body.message).toContain(
      "the session's schema lacks 'get_reservation_details', which the policy of the service (--policy) was written over",
    );
    // The host's fact sent as one the agent may set itself: the policy's condition on the
    // session's user would be the agent's to meet. Refused.
    const claimable = await api(server.url, 'POST', '/v1/sessions', {
      spec: intent,
      tools,
      states: {
        ...(states as Record<string, unknown>),
        SessionUser: {
          description: 'The user.',
          variables: [{ name: 'user_id', type: 'Text' }],
        },
      },
    });
    expect(claimable.status).toBe(422);
    expect(claimable.body.code).toBe('invalid-policy');
    expect(claimable.body.message).toContain("declares otherwise 'SessionUser'");
    // The operator's schema itself, in one file, is accepted.
    const oneFile = await api(server.url, 'POST', '/v1/sessions', {
      spec: intent,
      tools: { tools, states },
    });
    expect(oneFile.status).toBe(201);
  }, 60_000);

  it('does not start with a policy that does not check, or without the schema to check it', async () => {
    const broken = join(dir, 'broken.policy');
    writeFileSync(broken, 'cancel_reservation(reservation_id = "A") -> Done\n');
    const printed = await refusedStart([
      '--db',
      join(dir, 'x.db'),
      '--token',
      token,
      '--policy',
      broken,
      ...schemaFlags,
    ]);
    expect(printed).toContain('exited with 2');
    expect(printed).toContain('done-in-policy');
    expect(printed).toContain(`${broken}:1:`);
    expect(printed).toContain('nothing is served');
    const unschemed = await refusedStart([
      '--db',
      join(dir, 'y.db'),
      '--token',
      token,
      '--policy',
      policyFile,
    ]);
    expect(unschemed).toContain('exited with 2');
    expect(unschemed).toContain('--policy needs the schema');
    const alone = await refusedStart([
      '--db',
      join(dir, 'z.db'),
      '--token',
      token,
      '--allow-session-policy',
    ]);
    expect(alone).toContain('--allow-session-policy needs --policy');
  }, 60_000);
});
