import { jsonLines, run } from '../cli/run.js';

/**
 * The round-2 review's folder world (security-round-2.md, "How to run the reproductions"):
 * its tools.json and `protect.intent`, replayed through the CLI as a host would
 * (`intentguard replay SPEC --tools tools.json --trace T.jsonl --now … --check`).
 */
export const folderTools = JSON.stringify({
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
  ],
});

/** "Clean up /reports, but never remove anything while an NDA is in it." */
export const protect =
  'not ListFolderResult(entries[name contains "nda"] != []) & RemoveFile() -> Removed\nRemoved -> Done\n';
/** The same over the untyped (json) listing. */
export const protectRaw =
  'not ListFolderRawResult(entries[name contains "nda"] != []) & RemoveFile() -> Removed\nRemoved -> Done\n';

export const list = (path: string, tool = 'ListFolder') => ({
  propose: { action: { name: tool, args: { path } } },
  expect: 'allow',
});
export const listed = (path: string | undefined, entries: unknown, tool = 'ListFolder') => ({
  observe: {
    updates: { [`${tool}Result`]: { ...(path === undefined ? {} : { path }), entries } },
  },
});
export const remove = (path: string) => ({
  propose: { action: { name: 'RemoveFile', args: { path } } },
});

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
  tools = folderTools,
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
      '2025-06-02T09:00',
      '--check',
    ],
    {
      files: {
        'spec.intent': spec,
        'tools.json': tools,
        'trace.jsonl': `${trace.map((line) => JSON.stringify(line)).join('\n')}\n`,
      },
    },
  );
  const answers = jsonLines(result.stdout).filter(
    (line): line is Record<string, unknown> => typeof line === 'object' && line !== null,
  );
  return { code: result.code, answers, stderr: result.stderr };
}
