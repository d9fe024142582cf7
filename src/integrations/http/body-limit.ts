import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';

/** How a server answers a body it does not read; each answers in its own error format. */
export interface BodyLimitAnswers {
  /** The body is larger than the limit (413). */
  readonly tooLarge: (c: Context) => Response | Promise<Response>;
  /** The Content-Length header is not a number (400). */
  readonly badLength: (c: Context) => Response | Promise<Response>;
  /**
   * What becomes of a body declared (Content-Length) over the limit: `close` the
   * connection after the answer, nothing more read; or `drain`: read and drop it (up to
   * 64 MiB) before answering, so that a client still sending reads the answer instead of
   * a broken pipe (the service and the MCP proxy, whose clients send their whole request
   * before they read). A streamed body over the limit closes the connection.
   */
  readonly excess?: 'close' | 'drain';
}

/** Reads and drops a body, up to `limit` bytes; beyond that the rest stays unread. */
async function discard(body: ReadableStream<Uint8Array> | null, limit: number): Promise<void> {
  if (body === null) return;
  const reader = body.getReader();
  let read = 0;
  try {
    while (read <= limit) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.byteLength;
    }
    await reader.cancel();
  } catch {
    // The client went away: nothing left to drop.
  }
}

/** How much of an oversized body `drain` reads before it gives up and closes instead. */
const maxDrainBytes = 64 * 1024 * 1024;

/**
 * Bounds request bodies to `maxBytes`, for the service and the MCP proxy alike. A body
 * over the limit is answered 413 without being parsed; its rest is dropped as
 * `answers.excess` says (default: the connection is closed, as it cannot carry another
 * request with the rest of the body unread).
 */
export function requestBodyLimit(maxBytes: number, answers: BodyLimitAnswers): MiddlewareHandler {
  const tooLarge = (c: Context) => {
    c.header('Connection', 'close');
    return answers.tooLarge(c);
  };
  const declaredTooLarge = async (c: Context) => {
    if (answers.excess === 'drain' && Number(c.req.header('content-length')) <= maxDrainBytes) {
      await discard(c.req.raw.body, maxDrainBytes);
      return answers.tooLarge(c);
    }
    return tooLarge(c);
  };
  const streamedLimit = bodyLimit({ maxSize: maxBytes, onError: tooLarge });
  return async (c, next) => {
    const length = c.req.header('content-length');
    if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
      // Node's HTTP parser reads exactly Content-Length bytes as this request's body, so
      // the header alone bounds it — and the body is then read without wrapping it in a
      // stream (most of a check's cost on the server was that wrapping).
      if (!/^\d{1,15}$/.test(length.trim())) return answers.badLength(c);
      return Number(length) > maxBytes ? declaredTooLarge(c) : next();
    }
    return streamedLimit(c, next);
  };
}
