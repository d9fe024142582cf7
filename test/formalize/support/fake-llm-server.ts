import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback HTTP server that speaks OpenAI's chat-completions and embeddings
 * protocols (and Anthropic's messages protocol) with scripted replies, and records
 * every request so that tests can assert on what the client sent.
 */

/** Which pipeline step a request is, told apart by its system prompt. */
export type Role = 'encode' | 'check' | 'goal' | 'decode' | 'other';

export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The parsed JSON body. */
  readonly body: Record<string, unknown>;
  readonly role: Role;
  /** The system prompt. */
  readonly system: string;
  /** The non-system messages as role/content pairs. */
  readonly messages: readonly { readonly role: string; readonly content: string }[];
}

export interface ScriptedResponse {
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** The assistant's text (a 200 chat completion). */
  readonly text?: string;
  /** A raw JSON body instead (errors). */
  readonly body?: unknown;
  /** A body sent as is, JSON or not (a proxy's garbage, a truncated reply). */
  readonly rawBody?: string;
  readonly delayMs?: number;
  readonly usage?: { readonly input: number; readonly output: number };
}

export type Scripted =
  | string
  | ScriptedResponse
  | ((request: SeenRequest) => string | ScriptedResponse);

export interface FakeLlmServer {
  /** `http://127.0.0.1:PORT/v1` */
  readonly url: string;
  readonly requests: SeenRequest[];
  /** Queues replies for one role, served in order. */
  script(role: Role, ...replies: Scripted[]): void;
  /** Requests of one role, in arrival order. */
  of(role: Role): SeenRequest[];
  /** Replies still queued for a role. */
  remaining(role: Role): number;
  /** Embeddings for texts (default: a deterministic bag of words). */
  embed: (text: string) => number[];
  close(): Promise<void>;
}

export const defaultUsage = { input: 1000, output: 100 } as const;

function roleOf(system: string): Role {
  if (system.startsWith('You are the intent encoder')) return 'encode';
  if (system.startsWith('You review formal specs')) return 'check';
  if (system.startsWith("You analyse a user's instruction")) return 'goal';
  if (system.startsWith('You read formal Intent specs')) return 'decode';
  return 'other';
}

/** A small deterministic embedding: counts of hashed words, so similar texts are close. */
export function bagOfWords(text: string): number[] {
  const vector = new Array<number>(32).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let hash = 0;
    for (const character of word) hash = (hash * 31 + character.charCodeAt(0)) % 32;
    vector[hash] = (vector[hash] ?? 0) + 1;
  }
  return vector;
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) =>
        typeof part === 'object' && part !== null && 'text' in part ? String(part.text) : '',
      )
      .join('');
  }
  return '';
}

export async function startFakeLlmServer(): Promise<FakeLlmServer> {
  const requests: SeenRequest[] = [];
  const queues = new Map<Role, Scripted[]>();
  let server: Server | undefined;
  const fake: FakeLlmServer = {
    url: '',
    requests,
    script(role, ...replies) {
      queues.set(role, [...(queues.get(role) ?? []), ...replies]);
    },
    of(role) {
      return requests.filter((request) => request.role === role);
    },
    remaining(role) {
      return queues.get(role)?.length ?? 0;
    },
    embed: bagOfWords,
    close: () => new Promise((resolve) => (server ? server.close(() => resolve()) : resolve())),
  };

  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        // Left empty: the test sees the request anyway.
      }
      const path = request.url ?? '';
      const send = (
        status: number,
        payload: unknown,
        headers: Readonly<Record<string, string>> = {},
      ) => {
        response.writeHead(status, { 'content-type': 'application/json', ...headers });
        response.end(JSON.stringify(payload));
      };

      if (path.endsWith('/embeddings')) {
        const input = Array.isArray(body['input'])
          ? (body['input'] as string[])
          : [String(body['input'])];
        requests.push({
          method: request.method ?? '',
          path,
          headers: request.headers,
          body,
          role: 'other',
          system: '',
          messages: [],
        });
        send(200, {
          object: 'list',
          data: input.map((text, index) => ({
            object: 'embedding',
            index,
            embedding: fake.embed(text),
          })),
          model: body['model'],
          usage: { prompt_tokens: input.length * 3, total_tokens: input.length * 3 },
        });
        return;
      }

      const anthropic = path.endsWith('/messages');
      const rawMessages = Array.isArray(body['messages'])
        ? (body['messages'] as { role: string; content: unknown }[])
        : [];
      const system = anthropic
        ? contentText(body['system'])
        : contentText(rawMessages.find((message) => message.role === 'system')?.content);
      const messages = rawMessages
        .filter((message) => message.role !== 'system')
        .map((message) => ({ role: message.role, content: contentText(message.content) }));
      const seen: SeenRequest = {
        method: request.method ?? '',
        path,
        headers: request.headers,
        body,
        role: roleOf(system),
        system,
        messages,
      };
      requests.push(seen);
      const queue = queues.get(seen.role) ?? [];
      const next = queue.shift();
      if (next === undefined) {
        send(500, {
          error: { message: `no scripted reply for a ${seen.role} request`, type: 'server_error' },
        });
        return;
      }
      const scripted = typeof next === 'function' ? next(seen) : next;
      const reply: ScriptedResponse = typeof scripted === 'string' ? { text: scripted } : scripted;
      const usage = reply.usage ?? defaultUsage;
      const answer = () => {
        if (reply.rawBody !== undefined) {
          response.writeHead(reply.status ?? 200, {
            'content-type': 'application/json',
            ...reply.headers,
          });
          response.end(reply.rawBody);
          return;
        }
        if (reply.body !== undefined || (reply.status !== undefined && reply.status !== 200)) {
          send(
            reply.status ?? 200,
            reply.body ?? { error: { message: 'scripted error', type: 'error' } },
            reply.headers,
          );
          return;
        }
        if (anthropic) {
          send(
            200,
            {
              id: `msg_${requests.length}`,
              type: 'message',
              role: 'assistant',
              model: body['model'],
              content: [{ type: 'text', text: reply.text ?? '' }],
              stop_reason: 'end_turn',
              stop_sequence: null,
              usage: { input_tokens: usage.input, output_tokens: usage.output },
            },
            reply.headers,
          );
          return;
        }
        send(
          200,
          {
            id: `chatcmpl-${requests.length}`,
            object: 'chat.completion',
            created: 1_741_953_600,
            model: body['model'],
            choices: [
              {
                index: 0,
                message: { role: 'assistant', content: reply.text ?? '' },
                finish_reason: 'stop',
              },
            ],
            usage: {
              prompt_tokens: usage.input,
              completion_tokens: usage.output,
              total_tokens: usage.input + usage.output,
            },
          },
          reply.headers,
        );
      };
      if (reply.delayMs !== undefined) setTimeout(answer, reply.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, { url: `http://127.0.0.1:${port}/v1` });
}
