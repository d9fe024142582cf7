import { expect } from 'vitest';
import { run } from '../cli/run.js';

/**
 * The second review's reproductions, replayed by the CLI as the review ran them:
 * `intentguard replay SPEC --tools tools.json --trace T.jsonl --now 2025-06-02T09:00 --check`,
 * where each trace line's `expect` states the correct behaviour.
 */
export const reviewNow = '2025-06-02T09:00';

/** The review's shared tools.json (the tools these tests use). */
export const reviewTools = {
  tools: [
    {
      name: 'GetBlockedSenders',
      description: 'The senders the user blocked.',
      annotations: { readOnlyHint: true },
      inputSchema: { type: 'object', properties: {} },
      outputSchema: {
        type: 'object',
        properties: { senders: { type: 'array', items: { type: 'string' } } },
      },
    },
    {
      name: 'GetBalance',
      description: 'Read the account balance.',
      annotations: { readOnlyHint: true },
      inputSchema: { type: 'object', properties: {} },
      outputSchema: { type: 'object', properties: { balance: { type: 'number' } } },
    },
    {
      name: 'SendMail',
      description: 'Send an email.',
      annotations: { destructiveHint: true },
      inputSchema: {
        type: 'object',
        properties: {
          to: { type: 'string' },
          cc: { type: 'array', items: { type: 'string' } },
          subject: { type: 'string' },
          body: { type: 'string' },
        },
        required: ['to', 'subject', 'body'],
      },
    },
    {
      name: 'SendText',
      description: 'Send a text message.',
      annotations: { destructiveHint: true },
      inputSchema: {
        type: 'object',
        properties: { number: { type: 'string' }, text: { type: 'string' } },
        required: ['number', 'text'],
      },
    },
  ],
};

/** Replays `trace` (objects, one per line) against `spec` with `--check`; every line must pass. */
export async function replayChecked(
  spec: string,
  trace: readonly unknown[],
  tools: unknown = reviewTools,
): Promise<readonly Record<string, unknown>[]> {
  const result = await run(
    [
      'replay',
      'spec.intent',
      '--tools',
      'tools.json',
      '--trace',
      'trace.jsonl',
      '--now',
      reviewNow,
      '--check',
    ],
    {
      files: {
        'spec.intent': spec,
        'tools.json': JSON.stringify(tools),
        'trace.jsonl': `${trace.map((line) => JSON.stringify(line)).join('\n')}\n`,
      },
    },
  );
  const verdicts = result.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const expected = trace.filter(
    (line) => typeof line === 'object' && line !== null && 'expect' in line,
  );
  expect({ code: result.code, stderr: result.stderr }).toEqual({
    code: 0,
    stderr: `${expected.length} passed, 0 failed\n`,
  });
  return verdicts;
}
