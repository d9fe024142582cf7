import { errorMessage } from '../../support/error-message.js';
import { isRecord } from '../../support/is-record.js';
import {
  type ChatMessage,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  type EmbeddingModel,
  type EmbeddingResponse,
  ModelError,
  type ModelErrorCode,
  type ModelPurpose,
  providerRequest,
  type TokenUsage,
} from './model.js';

/** Run metadata: what a replay needs to rebuild the same prompts. First line of a recording. */
export interface RecordedRun {
  readonly type: 'run';
  readonly version: 1;
  readonly instruction: string;
  readonly schema: string;
  readonly now: string;
  readonly timeZone: string;
  readonly model: string;
  readonly options?: Readonly<Record<string, string | number | boolean>>;
}

export interface RecordedChat {
  readonly type: 'chat';
  readonly model: string;
  readonly request: {
    readonly purpose: ModelPurpose;
    readonly sample: number;
    readonly system: string;
    readonly messages: readonly ChatMessage[];
    readonly temperature?: number;
    readonly maxOutputTokens?: number;
  };
  readonly response?: {
    readonly text: string;
    readonly usage: TokenUsage;
    readonly model: string;
    readonly retries: number;
  };
  readonly error?: {
    readonly code: ModelErrorCode;
    readonly message: string;
    readonly status?: number;
  };
  readonly latencyMs: number;
}

export interface RecordedEmbedding {
  readonly type: 'embed';
  readonly model: string;
  readonly texts: readonly string[];
  readonly response?: EmbeddingResponse;
  readonly error?: {
    readonly code: ModelErrorCode;
    readonly message: string;
    readonly status?: number;
  };
  readonly latencyMs: number;
}

export type RecordEntry = RecordedRun | RecordedChat | RecordedEmbedding;

/** Lines of a recording accepted at all; a longer file is refused rather than read into memory. */
export const maxRecordingEntries = 10_000;

/**
 * Every model exchange of a run, in order, for reproducible runs and audits. Written
 * as JSON lines (`--record FILE`) and read back by `replayChatModel` (`--model replay:FILE`).
 */
export class Recording {
  readonly #entries: RecordEntry[] = [];

  get entries(): readonly RecordEntry[] {
    return this.#entries;
  }

  add(entry: RecordEntry): void {
    this.#entries.push(entry);
  }

  /** The run header, if the recording has one. */
  get run(): RecordedRun | undefined {
    return this.#entries.find((entry): entry is RecordedRun => entry.type === 'run');
  }

  toJsonl(): string {
    return this.#entries.map((entry) => `${JSON.stringify(entry)}\n`).join('');
  }

  /** Reads JSON lines; throws a `ModelError` (`invalid-recording`) naming the bad line. */
  static parse(text: string): Recording {
    const recording = new Recording();
    const lines = text.split('\n');
    let count = 0;
    for (const [index, line] of lines.entries()) {
      if (line.trim() === '') continue;
      if (++count > maxRecordingEntries) {
        throw new ModelError(
          'invalid-recording',
          `the recording has more than ${maxRecordingEntries} entries.`,
        );
      }
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (error) {
        throw new ModelError(
          'invalid-recording',
          `line ${index + 1} is not JSON: ${(error as Error).message}`,
        );
      }
      recording.add(readEntry(value, index + 1));
    }
    return recording;
  }
}

function readEntry(value: unknown, line: number): RecordEntry {
  const bad = (why: string) => new ModelError('invalid-recording', `line ${line}: ${why}`);
  if (!isRecord(value)) throw bad('expected a JSON object.');
  if (value['type'] === 'run') {
    if (typeof value['instruction'] !== 'string' || typeof value['now'] !== 'string') {
      throw bad('a run entry needs instruction and now.');
    }
    return value as unknown as RecordedRun;
  }
  if (value['type'] === 'chat') {
    const request = value['request'];
    if (
      !isRecord(request) ||
      typeof request['system'] !== 'string' ||
      !Array.isArray(request['messages'])
    ) {
      throw bad('a chat entry needs request.system and request.messages.');
    }
    const response = value['response'];
    if (response !== undefined && (!isRecord(response) || typeof response['text'] !== 'string')) {
      throw bad('a chat response needs text.');
    }
    if (response === undefined && !isRecord(value['error']))
      throw bad('a chat entry needs a response or an error.');
    return value as unknown as RecordedChat;
  }
  if (value['type'] === 'embed') {
    if (!Array.isArray(value['texts'])) throw bad('an embed entry needs texts.');
    return value as unknown as RecordedEmbedding;
  }
  throw bad(`unknown entry type ${JSON.stringify(value['type'])}.`);
}

/** What identifies a request for replay: everything that shapes the answer. */
function chatKey(request: RecordedChat['request'] | ChatRequest): string {
  return JSON.stringify([
    request.purpose,
    request.sample,
    request.system,
    request.messages.map((message) => [message.role, message.content]),
    request.temperature ?? null,
  ]);
}

function errorData(error: unknown): NonNullable<RecordedChat['error']> {
  if (ModelError.isInstance(error)) {
    return {
      code: error.code,
      message: error.message,
      ...(error.status !== undefined ? { status: error.status } : {}),
    };
  }
  return { code: 'provider', message: errorMessage(error) };
}

/** Wraps a chat model so that every exchange (answer or final error) is added to `recording`. */
export function recordingChatModel(
  model: ChatModel,
  recording: Recording,
  clock: () => number = Date.now,
): ChatModel {
  return {
    id: model.id,
    async generate(request: ChatRequest): Promise<ChatResponse> {
      const started = clock();
      const recordedRequest = {
        purpose: request.purpose,
        sample: request.sample,
        ...providerRequest(request),
      };
      try {
        const response = await model.generate(request);
        recording.add({
          type: 'chat',
          model: model.id,
          request: recordedRequest,
          response: {
            text: response.text,
            usage: response.usage,
            model: response.model,
            retries: response.retries,
          },
          latencyMs: clock() - started,
        });
        return response;
      } catch (error) {
        recording.add({
          type: 'chat',
          model: model.id,
          request: recordedRequest,
          error: errorData(error),
          latencyMs: clock() - started,
        });
        throw error;
      }
    },
  };
}

/** Wraps an embedding model the same way. */
export function recordingEmbeddingModel(
  model: EmbeddingModel,
  recording: Recording,
  clock: () => number = Date.now,
): EmbeddingModel {
  return {
    id: model.id,
    async embed(texts: readonly string[], signal?: AbortSignal): Promise<EmbeddingResponse> {
      const started = clock();
      try {
        const response = await model.embed(texts, signal);
        recording.add({
          type: 'embed',
          model: model.id,
          texts: [...texts],
          response,
          latencyMs: clock() - started,
        });
        return response;
      } catch (error) {
        recording.add({
          type: 'embed',
          model: model.id,
          texts: [...texts],
          error: errorData(error),
          latencyMs: clock() - started,
        });
        throw error;
      }
    },
  };
}

function replayedError(error: NonNullable<RecordedChat['error']>): ModelError {
  return new ModelError(
    error.code,
    `(replayed) ${error.message}`,
    error.status !== undefined ? { status: error.status } : {},
  );
}

/**
 * A chat model that answers from a recording: each request gets the recorded answer
 * to the identical request (same step, sample, prompt and temperature), in recorded
 * order. A request the recording does not hold fails with `replay-miss`; nothing is
 * invented.
 */
export function replayChatModel(recording: Recording, id = 'replay'): ChatModel {
  const queues = new Map<string, RecordedChat[]>();
  for (const entry of recording.entries) {
    if (entry.type !== 'chat') continue;
    const key = chatKey(entry.request);
    const queue = queues.get(key);
    if (queue) queue.push(entry);
    else queues.set(key, [entry]);
  }
  return {
    id,
    async generate(request: ChatRequest): Promise<ChatResponse> {
      const entry = queues.get(chatKey(request))?.shift();
      if (!entry) {
        const similar = recording.entries.filter(
          (candidate) =>
            candidate.type === 'chat' &&
            candidate.request.purpose === request.purpose &&
            candidate.request.sample === request.sample,
        ).length;
        throw new ModelError(
          'replay-miss',
          `the recording holds no ${request.purpose} exchange for sample ${request.sample + 1} with this exact prompt ` +
            `(it has ${similar} ${request.purpose} exchange${similar === 1 ? '' : 's'} for that sample); ` +
            'a replay needs the same instruction, schema, options, --now and --time-zone as the recorded run.',
        );
      }
      if (entry.error) throw replayedError(entry.error);
      const response = entry.response;
      if (!response)
        throw new ModelError(
          'invalid-recording',
          'a recorded exchange has neither a response nor an error.',
        );
      return {
        text: response.text,
        usage: response.usage ?? { inputTokens: null, outputTokens: null },
        model: response.model ?? entry.model,
        retries: 0,
      };
    },
  };
}

/** An embedding model that answers from a recording, matching the exact list of texts. */
export function replayEmbeddingModel(recording: Recording, id = 'replay'): EmbeddingModel {
  const queues = new Map<string, RecordedEmbedding[]>();
  for (const entry of recording.entries) {
    if (entry.type !== 'embed') continue;
    const key = JSON.stringify(entry.texts);
    const queue = queues.get(key);
    if (queue) queue.push(entry);
    else queues.set(key, [entry]);
  }
  return {
    id,
    async embed(texts: readonly string[]): Promise<EmbeddingResponse> {
      const entry = queues.get(JSON.stringify(texts))?.shift();
      if (!entry)
        throw new ModelError(
          'replay-miss',
          `the recording holds no embedding request for these ${texts.length} texts.`,
        );
      if (entry.error) throw replayedError(entry.error);
      if (!entry.response)
        throw new ModelError(
          'invalid-recording',
          'a recorded embedding has neither a response nor an error.',
        );
      return entry.response;
    },
  };
}
