import { openSync } from 'node:fs';
import { ReadStream, WriteStream } from 'node:tty';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { errorMessage } from '../../support/error-message.js';
import { invisibleClass } from '../../support/printable-text.js';

/** Shown as a space on the terminal: a prompt cannot move the cursor or reorder the line. */
const invisibleCharacter = new RegExp(`[${invisibleClass}]`, 'gu');

/**
 * How the proxy asks the person to approve a call the spec wants confirmed:
 * `elicit` — an MCP elicitation form in the client (only when the client declares the
 * capability); `console` — a y/N question on the proxy's controlling terminal
 * (`/dev/tty`; stdin and stdout carry the protocol); `deny` — refuse without asking.
 */
export type ConfirmMethod = 'elicit' | 'console' | 'deny';

export const confirmMethods: readonly ConfirmMethod[] = ['elicit', 'console', 'deny'];

/** What one method said: an answer, or that it could not ask (the next method tries). */
export type ConfirmAnswer =
  | { readonly answered: true; readonly approved: boolean; readonly method: ConfirmMethod }
  | { readonly answered: false; readonly reason: string };

export interface ConfirmContext {
  /** The downstream session's server, for elicitation. */
  readonly server: Server;
  readonly prompt: string;
  readonly tool: string;
  /** Aborted when the client cancels the call. */
  readonly signal?: AbortSignal;
}

export interface ConfirmOptions {
  /** How long a person has to answer (default 55 s: under the clients' usual 60 s request timeout). */
  readonly timeoutMs?: number;
  /** The terminal device for `console` (default `/dev/tty`). */
  readonly ttyPath?: string;
  /** Diagnostics (stderr). */
  readonly log?: (line: string) => void;
}

const defaultTimeoutMs = 55_000;

/** Parses `elicit,console,deny`; throws a readable message for anything else. */
export function parseConfirmMethods(text: string): ConfirmMethod[] {
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0) throw new Error('give one or more of elicit, console, deny');
  for (const name of names) {
    if (!(confirmMethods as readonly string[]).includes(name))
      throw new Error(`'${name}' is not a confirmation method (elicit, console, deny)`);
  }
  return names as ConfirmMethod[];
}

async function elicit(context: ConfirmContext, options: ConfirmOptions): Promise<ConfirmAnswer> {
  const capabilities = context.server.getClientCapabilities();
  if (capabilities?.elicitation === undefined)
    return { answered: false, reason: 'the client does not support elicitation' };
  try {
    const result = await context.server.elicitInput(
      {
        mode: 'form',
        message: context.prompt,
        requestedSchema: {
          type: 'object',
          properties: {
            approve: {
              type: 'boolean',
              title: 'Approve',
              description: `Run ${context.tool} as proposed`,
            },
          },
          required: ['approve'],
        },
      },
      {
        timeout: options.timeoutMs ?? defaultTimeoutMs,
        ...(context.signal ? { signal: context.signal } : {}),
      },
    );
    const approved = result.action === 'accept' && result.content?.['approve'] === true;
    return { answered: true, approved, method: 'elicit' };
  } catch (error) {
    return {
      answered: false,
      reason: `elicitation failed: ${errorMessage(error)}`,
    };
  }
}

/** One console question at a time: a terminal has one person in front of it. */
let consoleQueue: Promise<unknown> = Promise.resolve();

function askTerminal(context: ConfirmContext, options: ConfirmOptions): Promise<ConfirmAnswer> {
  let fd: number;
  try {
    fd = openSync(options.ttyPath ?? '/dev/tty', 'r+');
  } catch (error) {
    return Promise.resolve({
      answered: false,
      reason: `no terminal to ask on (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    });
  }
  return new Promise<ConfirmAnswer>((resolve) => {
    const input = new ReadStream(fd);
    const output = new WriteStream(fd);
    let line = '';
    let settled = false;
    const finish = (answer: ConfirmAnswer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      context.signal?.removeEventListener('abort', onAbort);
      input.removeAllListeners('data');
      input.destroy();
      output.destroy();
      resolve(answer);
    };
    const onAbort = (): void => finish({ answered: true, approved: false, method: 'console' });
    const timer = setTimeout(() => {
      output.write('\n(no answer: denied)\n');
      finish({ answered: true, approved: false, method: 'console' });
    }, options.timeoutMs ?? defaultTimeoutMs);
    context.signal?.addEventListener('abort', onAbort);
    input.setEncoding('utf8');
    input.on('data', (chunk: string) => {
      line += chunk;
      const end = line.indexOf('\n');
      if (end < 0 && line.length < 1000) return;
      const answer = line
        .slice(0, end < 0 ? undefined : end)
        .trim()
        .toLowerCase();
      finish({ answered: true, approved: answer === 'y' || answer === 'yes', method: 'console' });
    });
    input.on('error', () => finish({ answered: false, reason: 'the terminal could not be read' }));
    output.write(
      `\nintentguard: ${context.prompt.replace(invisibleCharacter, ' ')}\nApprove? [y/N] `,
    );
  });
}

function consoleAsk(context: ConfirmContext, options: ConfirmOptions): Promise<ConfirmAnswer> {
  const next = consoleQueue.then(() => askTerminal(context, options));
  consoleQueue = next.catch(() => undefined);
  return next;
}

/**
 * Asks with each method in turn until one answers; a method that cannot ask (no
 * elicitation capability, no terminal) passes to the next. Nothing answered is a denial.
 */
export async function confirmCall(
  methods: readonly ConfirmMethod[],
  context: ConfirmContext,
  options: ConfirmOptions = {},
): Promise<{ approved: boolean; method: ConfirmMethod | 'none'; skipped: string[] }> {
  const skipped: string[] = [];
  for (const method of methods) {
    if (context.signal?.aborted) break;
    if (method === 'deny') return { approved: false, method: 'deny', skipped };
    const answer =
      method === 'elicit' ? await elicit(context, options) : await consoleAsk(context, options);
    if (answer.answered) return { approved: answer.approved, method: answer.method, skipped };
    skipped.push(`${method}: ${answer.reason}`);
    options.log?.(`intentguard: confirmation by ${method} skipped: ${answer.reason}`);
  }
  return { approved: false, method: 'none', skipped };
}
