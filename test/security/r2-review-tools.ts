import { expect } from 'vitest';
import { jsonLines, run } from '../cli/run.js';

/**
 * The second review's reproductions, replayed by the CLI as the review ran them:
 * `intentguard replay SPEC --tools tools.json --trace T.jsonl --now 2025-06-02T09:00 --check`,
 * where each trace line's `expect` states the correct behaviour.
 */
export const reviewNow = '2025-06-02T09:00';

/** The review's shared tools.json, whole. */
export const reviewTools = {
  tools: [
    {
      name: 'ListFolder',
      description: 'List the files of a folder.',
      annotations: { readOnlyHint: true },
      inputSchema: {
        type: 'object',
        properties: { path: { type: 'string' } },
        required: ['path'],
      },
      outputSchema: {
        type: 'object',
        properties: {
          entries: {
            type: 'array',
            items: {
              type: 'object',
              properties: { name: { type: 'string' }, size: { type: 'number' } },
              required: ['name'],
            },
          },
        },
      },
    },
    {
      name: 'ListFolderRaw',
      description: 'List the files of a folder (untyped output).',
      annotations: { readOnlyHint: true },
      inputSchema: {
        type: 'object',
        properties: { path: { type: 'string' } },
        required: ['path'],
      },
      outputSchema: {
        type: 'object',
        properties: { entries: { type: 'array', description: 'the files, each with a name' } },
      },
    },
    {
      name: 'RemoveFile',
      description: 'Remove a file.',
      annotations: { destructiveHint: true },
      inputSchema: {
        type: 'object',
        properties: { path: { type: 'string' } },
        required: ['path'],
      },
    },
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
    {
      name: 'Pay',
      description: 'Pay someone.',
      annotations: { destructiveHint: true },
      inputSchema: {
        type: 'object',
        properties: {
          payee: { type: 'string' },
          amount: { type: 'number' },
          note: { type: 'string' },
        },
        required: ['payee', 'amount'],
      },
    },
  ],
};

export interface Replayed {
  readonly code: number;
  /** One answer per trace line. */
  readonly answers: readonly Record<string, unknown>[];
  readonly stderr: string;
}

/** `replay --check` of a trace (the trace lines carry their own `expect`). */
export async function replay(
  spec: string,
  trace: readonly unknown[],
  tools: unknown = reviewTools,
): Promise<Replayed> {
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
        'tools.json': typeof tools === 'string' ? tools : JSON.stringify(tools),
        'trace.jsonl': `${trace.map((line) => JSON.stringify(line)).join('\n')}\n`,
      },
    },
  );
  const answers = jsonLines(result.stdout).filter(
    (line): line is Record<string, unknown> => typeof line === 'object' && line !== null,
  );
  return { code: result.code, answers, stderr: result.stderr };
}

/** Replays `trace` against `spec` with `--check`; every line with an `expect` must pass. */
export async function replayChecked(
  spec: string,
  trace: readonly unknown[],
  tools: unknown = reviewTools,
): Promise<readonly Record<string, unknown>[]> {
  const { code, answers, stderr } = await replay(spec, trace, tools);
  const expected = trace.filter(
    (line) => typeof line === 'object' && line !== null && 'expect' in line,
  );
  expect({ code, stderr }).toEqual({ code: 0, stderr: `${expected.length} passed, 0 failed\n` });
  return answers;
}
