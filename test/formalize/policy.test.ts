import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formalize } from '../../src/formalize/index.js';
import { formalizeLimits } from '../../src/formalize/limits.js';
import { type Schema, unwrap } from '../../src/language/index.js';
import { loadStateSchema, loadToolSchema, mergeSchemas } from '../../src/schema/index.js';
import { run } from '../cli/run.js';
import { type FakeLlmServer, startFakeLlmServer } from './support/fake-llm-server.js';
import { fenced, now, serverModel, testEnv } from './support/fixtures.js';

/*
 * Formalizing under the operator's policy (LANGUAGE.md §8): the encoder sees the policy as
 * what is already enforced and is told not to restate it; each draft is checked together
 * with it (an objective the policy owns goes back for repair); the result carries the
 * pair's warnings; an invalid policy formalizes nothing. Through a loopback server
 * speaking OpenAI's protocol with scripted replies, and through the CLI.
 */

const example = (file: string) =>
  readFileSync(new URL(`../../examples/policy/${file}`, import.meta.url), 'utf8');
const toolsPath = new URL('../../examples/policy/tools.json', import.meta.url).pathname;
const statesPath = new URL('../../examples/policy/states.json', import.meta.url).pathname;
const policyPath = new URL('../../examples/policy/airline.policy', import.meta.url).pathname;
const schema: Schema = unwrap(
  mergeSchemas(
    unwrap(loadToolSchema(JSON.parse(example('tools.json')), { id: 'airline' })),
    unwrap(loadStateSchema(JSON.parse(example('states.json')), { id: 'host' })),
  ),
);
const policy = example('airline.policy');
const instruction = 'Send me a certificate of 300 for the delayed flight.';
// The policy's own objective as the intent's head: an error of the pair.
const restating =
  'SessionUser(user_id = $u) & send_certificate(user_id = $u, amount = 300) -> Compensated\nCompensated -> Done';
const taskOnly =
  'SessionUser(user_id = $u) & send_certificate(user_id = $u, amount = 300) -> Sent\nSent -> Done';

let server: FakeLlmServer;
let directory: string;
beforeEach(async () => {
  server = await startFakeLlmServer();
  directory = mkdtempSync(join(tmpdir(), 'intentguard-formalize-policy-'));
});
afterEach(async () => {
  await server.close();
  rmSync(directory, { recursive: true, force: true });
});

const options = () => ({
  instruction,
  schema,
  model: serverModel(server),
  checker: false as const,
  mode: 'direct' as const,
  now,
  timeZone: 'UTC',
  policy,
});

describe('formalize with a policy', () => {
  it('shows the policy as enforced context, repairs a draft that takes its objective, and reports the conflict', async () => {
    server.script('encode', fenced(restating), fenced(taskOnly));
    const result = await formalize(options());
    const [first, second] = server.of('encode');
    const prompt = first?.messages[0]?.content ?? '';
    expect(prompt).toContain("The operator's policy: standing rules enforced on every action");
    expect(prompt).toContain('Do not restate it.');
    expect(prompt).toContain(`\`\`\`policy\n${policy.trim()}\n\`\`\``);
    // After the schema (the cached prefix), before the date and the instruction.
    expect(prompt.indexOf('```policy')).toBeLessThan(prompt.indexOf('Today is'));
    expect(prompt.indexOf('```policy')).toBeGreaterThan(prompt.indexOf('tool send_certificate'));
    expect(second?.messages[2]?.content).toContain('error[shared-objective]');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.text).toContain('-> Sent');
    // The policy permits at most 100: the task cannot be done under it, and the result says so.
    expect(result.diagnostics.map((diagnostic) => diagnostic.code)).toContain('policy-conflict');
    expect(result.report.prompt.user).toContain('```policy');
  });

  it("counts the policy's values as given to the grounding check", async () => {
    // 100 is the policy's, not the instruction's: not an ungrounded value.
    const spec =
      'SessionUser(user_id = $u) & send_certificate(user_id = $u, amount <= 100) -> Sent\nSent -> Done';
    server.script('encode', fenced(spec));
    const result = await formalize({
      ...options(),
      instruction: 'Send me the compensation for the delayed flight.',
      rounds: 0,
    });
    expect(result.ok).toBe(true);
  });

  it('formalizes nothing under a policy that does not check, or that the prompt cannot hold', async () => {
    const invalid = await formalize({ ...options(), policy: 'send_certificate() -> Done' });
    expect(invalid.ok).toBe(false);
    if (invalid.ok) return;
    expect(invalid.failure.code).toBe('invalid-input');
    expect(invalid.failure.message).toMatch(/^the policy does not check: 1:\d+: /);
    // Comments are dropped to fit; rules alone past the budget fail.
    const commented = `# ${'x'.repeat(formalizeLimits.maxPolicyPromptLength)}\n${policy}`;
    server.script('encode', fenced(taskOnly));
    const fitted = await formalize({ ...options(), policy: commented });
    expect(fitted.ok).toBe(true);
    const shown = server.of('encode')[0]?.messages[0]?.content ?? '';
    expect(shown).not.toContain('xxxx');
    expect(shown).toContain('reject send_certificate(amount > 500)');
    const rules = Array.from(
      { length: 400 },
      (_, index) => `reject send_certificate(amount = ${index + 1000}) because "no"`,
    ).join('\n');
    const tooLong = await formalize({ ...options(), policy: rules });
    expect(tooLong.ok).toBe(false);
    if (tooLong.ok) return;
    expect(tooLong.failure.message).toMatch(/without its comments; the prompt shows at most/);
    expect(server.of('encode')).toHaveLength(1);
  });
});

describe('intentguard formalize --policy', () => {
  const args = (policyFile: string) => [
    'formalize',
    instruction,
    '--tools',
    toolsPath,
    '--states',
    statesPath,
    '--policy',
    policyFile,
    '--model',
    'openai:gpt-4o',
    '--base-url',
    server.url,
    '--max-retries',
    '0',
    '--no-semantic-check',
    '--mode',
    'direct',
    '--now',
    now,
  ];

  it('writes the intent under the policy and prints the pair’s warnings', async () => {
    server.script('encode', fenced(taskOnly));
    const result = await run(args(policyPath), { env: testEnv });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('-> Sent');
    expect(result.stderr).toContain('warning[policy-conflict]');
    expect(server.of('encode')[0]?.messages[0]?.content).toContain('```policy');
  });

  it('a policy that does not check: its diagnostics, exit 1, no model call', async () => {
    const bad = join(directory, 'bad.policy');
    writeFileSync(bad, 'send_certificate() -> Done\n');
    const result = await run(args(bad), { env: testEnv });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error[done-in-policy]');
    expect(result.stdout).toBe('');
    expect(server.requests).toHaveLength(0);
  });
});
