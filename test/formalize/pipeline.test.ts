import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSession, MajoritySession } from '../../src/engine/index.js';
import { createChatModel, formalize } from '../../src/formalize/index.js';
import { type FakeLlmServer, startFakeLlmServer } from './support/fake-llm-server.js';
import {
  agree,
  disagree,
  fenced,
  now,
  restaurantInstruction,
  restaurantSchema,
  restaurantSpec,
  serverModel,
  testEnv,
} from './support/fixtures.js';

let server: FakeLlmServer;

beforeEach(async () => {
  server = await startFakeLlmServer();
});

afterEach(async () => {
  await server.close();
});

const misspelled = [
  'R1: RestaurantInfo(name = "R") & ReservInfo(date = today, time < 19:00, available = true) -> Reserve',
  'R2: Reserve & ReserveResult(success = true) -> Done',
].join('\n');

describe('formalize against an OpenAI-compatible server', () => {
  it('sends the schema signatures, the date and the instruction, and repairs a malformed first reply', async () => {
    server.script('encode', fenced(misspelled), fenced(restaurantSpec));
    server.script('check', agree);
    const result = await formalize({
      instruction: restaurantInstruction,
      schema: restaurantSchema(),
      model: serverModel(server),
      now,
      timeZone: 'Europe/Berlin',
    });

    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.text).toContain(
      'ReserveInfo(date = today, time < 19:00, available = true) -> Reserve',
    );

    const [first, second] = server.of('encode');
    expect(first?.path).toBe('/v1/chat/completions');
    expect(first?.headers.authorization).toBe('Bearer sk-test-key');
    expect(first?.body['model']).toBe('gpt-4o');
    expect(first?.body['temperature']).toBe(0);
    expect(first?.system).toContain('# The Intent language');
    expect(first?.system).toContain('# Worked examples');
    const prompt = first?.messages[0]?.content ?? '';
    expect(prompt).toContain(
      'Today is Friday, 2025-03-14; the time is 12:00 (time zone Europe/Berlin).',
    );
    expect(prompt).toContain('state ReserveInfo(date: date, time: time, available: boolean)');
    expect(prompt).toContain('# Reservation details selected on the booking screen.');
    expect(prompt).toContain(`<instruction>\n${restaurantInstruction}\n</instruction>`);

    // The repair request carries the previous attempt and its rendered diagnostics.
    expect(second?.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(second?.messages[1]?.content).toBe(fenced(misspelled));
    const repair = second?.messages[2]?.content ?? '';
    expect(repair).toContain('error[unknown-predicate]');
    expect(repair).toContain('ReservInfo');
    expect(repair).toContain('ReserveInfo');
    expect(repair).not.toContain('\u001b[');

    expect(result.report.attempts.map((attempt) => `${attempt.stage}:${attempt.outcome}`)).toEqual([
      'encode:invalid',
      'encode:valid',
      'check:agree',
    ]);
    expect(
      result.report.attempts[0]?.diagnostics.some(
        (diagnostic) => diagnostic.code === 'unknown-predicate',
      ),
    ).toBe(true);
    expect(result.report.usage).toEqual({ inputTokens: 3000, outputTokens: 300 });
    // gpt-4o: $2.50 per million input tokens, $10 per million output tokens.
    expect(result.report.costUsd).toBeCloseTo((3 * (1000 * 2.5 + 100 * 10)) / 1e6, 10);
    expect(result.report.attempts.every((attempt) => attempt.latencyMs >= 0)).toBe(true);
    expect(result.report.samples).toMatchObject([{ sample: 0, ok: true, rounds: 1 }]);
  });

  it('feeds a disagreeing checker back with the reading and the discrepancies', async () => {
    // Made of the instruction's values (grounded), but "at 7 PM" is not "before 7 PM":
    // only the checker can tell.
    const wrongTime = restaurantSpec.replaceAll('time < 19:00', 'time <= 19:00');
    server.script('encode', fenced(wrongTime), fenced(restaurantSpec));
    server.script(
      'check',
      disagree('The spec allows reserving at 7 PM; the user said before 7 PM.', 'use time < 19:00'),
      agree,
    );
    const result = await formalize({
      instruction: restaurantInstruction,
      schema: restaurantSchema(),
      model: serverModel(server),
      now,
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.text).toContain('time < 19:00');
    expect(result.value.text).not.toContain('<= 19:00');

    const [firstCheck] = server.of('check');
    expect(firstCheck?.body['temperature']).toBe(0);
    const checkPrompt = firstCheck?.messages[0]?.content ?? '';
    expect(checkPrompt).toContain(`<instruction>\n${restaurantInstruction}\n</instruction>`);
    expect(checkPrompt).toContain('<reading>');
    expect(checkPrompt).toContain('19:00');

    const revision = server.of('encode')[1]?.messages[2]?.content ?? '';
    expect(revision).toContain('The spec allows reserving at 7 PM; the user said before 7 PM.');
    expect(revision).toContain('(suggested fix: use time < 19:00)');
    expect(revision).toContain('<reading>');
    expect(revision).toContain('19:00');
    expect(result.report.attempts.map((attempt) => `${attempt.stage}:${attempt.outcome}`)).toEqual([
      'encode:valid',
      'check:disagree',
      'encode:valid',
      'check:agree',
    ]);
    expect(result.report.attempts[1]?.discrepancies[0]?.fix).toBe('use time < 19:00');
  });

  it('fails closed when no reply ever validates: no spec, the diagnostics, bounded rounds', async () => {
    const broken = fenced('RestaurantInfo(name = R, downtown) -> Reserve');
    server.script('encode', broken, broken, broken, broken, broken);
    const result = await formalize({
      instruction: restaurantInstruction,
      schema: restaurantSchema(),
      model: serverModel(server),
      now,
      rounds: 3,
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.value).toBeUndefined();
    expect(result.failure.code).toBe('invalid-spec');
    expect(result.failure.message).toContain('after 3 repair rounds');
    expect(result.diagnostics.length).toBeGreaterThan(0);
    expect(server.of('encode')).toHaveLength(4);
    expect(server.of('check')).toHaveLength(0);
    expect(server.remaining('encode')).toBe(1);
    expect(result.report.attempts.every((attempt) => attempt.outcome === 'invalid')).toBe(true);
    expect(result.report.samples).toMatchObject([{ ok: false, failure: { code: 'invalid-spec' } }]);
  });

  it('fails closed when the checker keeps disagreeing', async () => {
    server.script('encode', fenced(restaurantSpec), fenced(restaurantSpec));
    server.script(
      'check',
      disagree('Missing the party size.'),
      disagree('Still missing the party size.'),
    );
    const result = await formalize({
      instruction: restaurantInstruction,
      schema: restaurantSchema(),
      model: serverModel(server),
      now,
      rounds: 1,
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.failure.code).toBe('semantic-disagreement');
    expect(result.failure.message).toContain('Still missing the party size.');
  });

  it('re-asks a checker whose reply is not JSON once, then gives up (checker-unusable)', async () => {
    server.script('encode', fenced(restaurantSpec));
    server.script('check', 'Looks fine to me!', 'I agree.');
    const result = await formalize({
      instruction: restaurantInstruction,
      schema: restaurantSchema(),
      model: serverModel(server),
      now,
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.failure.code).toBe('checker-unusable');
    const second = server.of('check')[1];
    expect(second?.messages[2]?.content).toContain('not the JSON object asked for');
  });

  it('retries a 429 after the Retry-After delay and records the retry', async () => {
    const delays: number[] = [];
    server.script(
      'encode',
      {
        status: 429,
        headers: { 'retry-after': '2' },
        body: { error: { message: 'Rate limit reached', type: 'requests' } },
      },
      fenced(restaurantSpec),
    );
    server.script('check', agree);
    const result = await formalize({
      instruction: restaurantInstruction,
      schema: restaurantSchema(),
      model: serverModel(server, delays),
      now,
    });
    expect(result.ok).toBe(true);
    expect(delays).toEqual([2000]);
    expect(server.of('encode')).toHaveLength(2);
    expect(result.report.attempts[0]).toMatchObject({
      stage: 'encode',
      outcome: 'valid',
      retries: 1,
    });
  });

  it('backs off exponentially on 5xx without Retry-After', async () => {
    const delays: number[] = [];
    const error = { status: 503, body: { error: { message: 'overloaded', type: 'server_error' } } };
    server.script('encode', error, error, fenced(restaurantSpec));
    const result = await formalize({
      instruction: restaurantInstruction,
      schema: restaurantSchema(),
      model: serverModel(server, delays),
      checker: false,
      now,
    });
    expect(result.ok).toBe(true);
    expect(delays).toEqual([10, 20]);
  });

  it('does not retry a 401 and reports a model error naming the status', async () => {
    const delays: number[] = [];
    server.script('encode', {
      status: 401,
      body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } },
    });
    const result = await formalize({
      instruction: restaurantInstruction,
      schema: restaurantSchema(),
      model: serverModel(server, delays),
      now,
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.failure.code).toBe('model-error');
    expect(result.failure.message).toContain('HTTP 401');
    expect(result.failure.message).toContain('Incorrect API key provided');
    expect(delays).toEqual([]);
    expect(result.report.attempts).toMatchObject([{ outcome: 'error', stage: 'encode' }]);
  });

  it('times out a call that takes too long', async () => {
    server.script('encode', { text: fenced(restaurantSpec), delayMs: 2000 });
    const model = createChatModel('openai:gpt-4o', {
      env: testEnv,
      baseUrl: server.url,
      timeoutMs: 100,
      retry: false,
    });
    const result = await formalize({
      instruction: restaurantInstruction,
      schema: restaurantSchema(),
      model,
      now,
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.failure.code).toBe('model-error');
    expect(result.failure.message).toContain('no answer within');
  });

  it('votes over samples that disagree, and the majority session decides by their votes', async () => {
    // Lenient with the instruction's own time (a time it does not give is not grounded).
    const lenient = restaurantSpec.replaceAll('time < 19:00', 'time <= 19:00');
    server.script(
      'encode',
      fenced(restaurantSpec),
      fenced(`# a comment does not make it different\n${restaurantSpec}`),
      fenced(lenient),
    );
    const result = await formalize({
      instruction: restaurantInstruction,
      schema: restaurantSchema(),
      model: serverModel(server),
      checker: false,
      samples: 3,
      now,
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const encodes = server.of('encode');
    expect(encodes).toHaveLength(3);
    expect(encodes.every((request) => request.body['temperature'] === 0.7)).toBe(true);
    expect(result.value.specs.map((spec) => spec.votes).sort()).toEqual([1, 2]);
    expect(result.value.specs[0]?.votes).toBe(2);
    expect(result.value.text).toContain('time < 19:00');
    expect(result.value.members).toHaveLength(3);

    const majority = new MajoritySession(result.value.members, { now });
    expect(majority.groups.map((group) => group.weight).sort()).toEqual([1, 2]);
    const late = majority.propose({
      objective: 'Reserve',
      updates: {
        RestaurantInfo: { name: 'R' },
        ReserveInfo: { date: '2025-03-14', time: '19:00', available: true },
      },
    });
    expect(late.decision).toBe('revise');
    expect(late.votes).toEqual({ allow: 1, confirm: 0, revise: 2, reject: 0 });
  });

  it('fails without a quorum of valid samples', async () => {
    const broken = fenced('Nonsense(x = 1) -> Done');
    server.script('encode', fenced(restaurantSpec), broken, broken, broken);
    const result = await formalize({
      instruction: restaurantInstruction,
      schema: restaurantSchema(),
      model: serverModel(server),
      checker: false,
      samples: 3,
      rounds: 0,
      now,
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.failure.code).toBe('no-quorum');
    expect(result.failure.message).toContain('1 of 3 samples produced a valid spec; 2 needed.');
  });

  it('reads the spec back with an LLM decoder that never sees the instruction', async () => {
    server.script('encode', fenced(restaurantSpec));
    server.script(
      'decode',
      'The agent reserves restaurant R today before 19:00 if it is available; otherwise it stops.',
    );
    server.script('check', agree);
    const model = serverModel(server);
    const result = await formalize({
      instruction: restaurantInstruction,
      schema: restaurantSchema(),
      model,
      decoder: model,
      now,
    });
    expect(result.ok).toBe(true);
    const decode = server.of('decode')[0];
    expect(decode?.messages[0]?.content).toContain('RestaurantInfo(name = "R")');
    expect(decode?.messages[0]?.content).not.toContain(restaurantInstruction);
    expect(server.of('check')[0]?.messages[0]?.content).toContain(
      'The agent reserves restaurant R today before 19:00',
    );
  });

  it('hands out a spec that a session can enforce', async () => {
    server.script('encode', fenced(restaurantSpec));
    server.script('check', agree);
    const result = await formalize({
      instruction: restaurantInstruction,
      schema: restaurantSchema(),
      model: serverModel(server),
      now,
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const session = createSession(result.value.spec, { now });
    const verdict = session.propose({
      objective: 'Reserve',
      updates: {
        RestaurantInfo: { name: 'R' },
        ReserveInfo: { date: '2025-03-14', time: '18:00', available: true },
      },
    });
    expect(verdict.decision).toBe('allow');
  });

  it('rejects an empty instruction without calling the model', async () => {
    const result = await formalize({
      instruction: '   ',
      schema: restaurantSchema(),
      model: serverModel(server),
      now,
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.failure.code).toBe('invalid-input');
    expect(server.requests).toHaveLength(0);
  });
});
