import { readFile, writeFile } from 'node:fs/promises';
import { IntentguardError } from '../language/index.js';
import { decodeUtf8 } from './utf8.js';

/**
 * Everything a command touches outside itself, so that commands run in-process in
 * tests with captured output and scripted input.
 */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Standard input as text; bytes that are not UTF-8 reject with an `InvalidUtf8Error`. */
  readonly readStdin: () => Promise<string>;
  /** A file as text; bytes that are not UTF-8 reject with an `InvalidUtf8Error`. */
  readonly readFile: (path: string) => Promise<string>;
  readonly writeFile: (path: string, text: string) => Promise<void>;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Whether stdout is a terminal (colours, progress). */
  readonly stdoutIsTerminal: boolean;
  /** Whether stderr is a terminal. */
  readonly stderrIsTerminal: boolean;
}

/** `invalid-usage`: a usage or input error (exit 2); `negative-result`: the answer is no (exit 1). */
export type CliErrorCode = 'invalid-usage' | 'negative-result';

/** A failure that ends a command with a message and an exit code (1 negative result, 2 usage/input). */
export class CliError extends IntentguardError {
  static override readonly marker = 'intentguard.error.CliError';
  static readonly errorName = 'IntentguardCliError';
  override readonly name = CliError.errorName;
  override readonly code: CliErrorCode;

  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 2,
  ) {
    const code = exitCode === 1 ? 'negative-result' : 'invalid-usage';
    super({ code, message });
    this.code = code;
  }
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return decodeUtf8(Buffer.concat(chunks));
}

export function nodeIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    readStdin: () => readAll(process.stdin),
    readFile: async (path) => decodeUtf8(await readFile(path)),
    writeFile: (path, text) => writeFile(path, text, 'utf8'),
    env: process.env,
    stdoutIsTerminal: process.stdout.isTTY === true && process.env.NO_COLOR === undefined,
    stderrIsTerminal: process.stderr.isTTY === true && process.env.NO_COLOR === undefined,
  };
}
