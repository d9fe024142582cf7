import { readFile, writeFile } from 'node:fs/promises';
import type { CliIo } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/program.js';
import { decodeUtf8 } from '../../src/cli/utf8.js';

export interface RunOptions {
  /**
   * What standard input holds (bytes are decoded as the real CLI decodes them); reading
   * it when not given yields the empty string.
   */
  readonly stdin?: string | Uint8Array;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * In-memory files by path. Reads look here first and fall back to the disk; writes
   * to a path held here stay here (and show in `files` of the result).
   */
  readonly files?: Readonly<Record<string, string>>;
  readonly stdoutIsTerminal?: boolean;
  readonly stderrIsTerminal?: boolean;
}

export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** The in-memory files after the run, with any writes applied. */
  readonly files: ReadonlyMap<string, string>;
  /** How often the command read standard input. */
  readonly stdinReads: number;
}

/**
 * Runs `intentguard ARGV` in-process, the way `main.ts` does, with captured output
 * and scripted input: the command sees only this `CliIo`.
 */
export async function run(argv: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  let stdinReads = 0;
  const files = new Map(Object.entries(options.files ?? {}));
  const io: CliIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    readStdin: async () => {
      stdinReads++;
      const stdin = options.stdin ?? '';
      return typeof stdin === 'string' ? stdin : decodeUtf8(stdin);
    },
    readFile: async (path) => files.get(path) ?? decodeUtf8(await readFile(path)),
    writeFile: async (path, text) => {
      if (files.has(path)) files.set(path, text);
      else await writeFile(path, text, 'utf8');
    },
    env: options.env ?? {},
    stdoutIsTerminal: options.stdoutIsTerminal ?? false,
    stderrIsTerminal: options.stderrIsTerminal ?? false,
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr, files, stdinReads };
}

/** Lines of output without the final empty one. */
export function lines(text: string): string[] {
  const all = text.split('\n');
  if (all.at(-1) === '') all.pop();
  return all;
}

/** Parses each line of JSON-lines output. */
export function jsonLines(text: string): unknown[] {
  return lines(text).map((line) => JSON.parse(line) as unknown);
}

export const ansiEscape = /\u001b\[/;
