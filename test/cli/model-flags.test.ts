import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeLlmServer, startFakeLlmServer } from '../formalize/support/fake-llm-server.js';
import {
  agree,
  fenced,
  restaurantInstruction,
  restaurantSpec,
  testEnv,
} from '../formalize/support/fixtures.js';
import { run } from './run.js';

/*
 * Every command that calls a model builds it from the same flags (src/cli/flags/model-flags.ts):
 * --timeout and --max-retries reach the model of formalize and eval (seen at a loopback
 * provider), and serve and mcp-proxy take and check them the same way.
 */

const root = resolve(import.meta.dirname, '../..');
const states = resolve(root, 'examples/restaurant/states.json');
const dataset = resolve(root, 'examples/eval/dataset.jsonl');
let server: FakeLlmServer;

beforeAll(async () => {
  server = await startFakeLlmServer();
});
afterAll(async () => {
  await server.close();
});

const busy = {
  status: 503,
  headers: { 'retry-after-ms': '0' },
  body: { error: { message: 'busy' } },
};
const model = () => ['--model', 'openai:gpt-4o', '--base-url', server.url];
const formalize = (...flags: string[]) => [
  'formalize',
  restaurantInstruction,
  '--states',
  states,
  '--now',
  '2025-03-14T12:00',
  ...model(),
  ...flags,
];

describe('the model flags', () => {
  it('formalize: --max-retries N retries a failed call N times, at the provider', async () => {
    const before = server.of('encode').length;
    server.script('encode', busy, fenced(restaurantSpec));
    server.script('check', agree);
    const result = await run(formalize('--max-retries', '1'), { env: testEnv });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(server.of('encode').length - before).toBe(2);

    server.script('encode', busy);
    const none = await run(formalize('--max-retries', '0'), { env: testEnv });
    expect(none.code).toBe(2);
    expect(server.of('encode').length - before).toBe(3);
  });

  it('formalize: --timeout S ends a model call that takes longer', async () => {
    server.script('encode', { text: fenced(restaurantSpec), delayMs: 2500 });
    const started = Date.now();
    const result = await run(formalize('--timeout', '1', '--max-retries', '0'), {
      env: testEnv,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('openai:gpt-4o: no answer within 1 s.');
    expect(Date.now() - started).toBeLessThan(2400);
  });

  it('eval: --max-retries reaches the formalizer model the same way', async () => {
    const bank = readFileSync(resolve(root, 'examples/bank-transfer/spec.intent'), 'utf8');
    const cases = readFileSync(dataset, 'utf8')
      .split('\n')
      .filter((line) => line.includes('"bank-transfer-ok"'));
    const file = join(mkdtempSync(join(tmpdir(), 'intentguard-model-flags-')), 'one.jsonl');
    // The dataset names its schemas relative to itself.
    writeFileSync(file, `${cases.join('\n').replaceAll('../', `${resolve(root, 'examples')}/`)}\n`);
    const before = server.of('encode').length;
    server.script('encode', busy, fenced(bank));
    server.script('check', agree);
    const argv = ['eval', 'dataset', file, '--formalize-all', '--mode', 'direct', '--json'];
    const result = await run([...argv, ...model(), '--max-retries', '1'], { env: testEnv });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(server.of('encode').length - before).toBe(2);

    server.script('encode', busy);
    await run([...argv, ...model(), '--max-retries', '0'], { env: testEnv });
    expect(server.of('encode').length - before).toBe(3);
  });

  const refused = {
    formalize: ['formalize', restaurantInstruction, '--states', states, '--model', 'openai:gpt-4o'],
    eval: ['eval', 'dataset', dataset, '--formalize-all', '--model', 'openai:gpt-4o'],
    serve: [
      'serve',
      '--token',
      'a-secret-token-of-tests',
      '--db',
      ':memory:',
      '--model',
      'openai:gpt-4o',
    ],
    'mcp-proxy': ['mcp-proxy', '--instruction', 'do it', '--model', 'openai:gpt-4o'],
  };
  /** mcp-proxy's upstream command comes last, after `--`. */
  const upstream = (command: string) => (command === 'mcp-proxy' ? ['--', 'node'] : []);
  for (const [command, argv] of Object.entries(refused)) {
    it(`${command} declares --timeout and --max-retries and refuses bad values alike`, async () => {
      const timeout = await run([...argv, '--timeout', '0', ...upstream(command)], {
        env: testEnv,
      });
      expect(timeout.code).toBe(2);
      expect(timeout.stderr).toContain(
        "--timeout: '0' is not a whole number from 1 to 3600 (write plain digits)",
      );
      const retries = await run([...argv, '--max-retries', '11', ...upstream(command)], {
        env: testEnv,
      });
      expect(retries.code).toBe(2);
      expect(retries.stderr).toContain(
        "--max-retries: '11' is not a whole number from 0 to 10 (write plain digits)",
      );
    });
  }
});
