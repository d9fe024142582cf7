import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';

/** How a server answers a body it does not read; each answers in its own error format. */
export interface BodyLimitAnswers {
  /** The body is larger than the limit (413). */
  readonly tooLarge: (c: Context) => Response | Promise<Response>;
  /** The Content-Length header is not a number (400). */
  readonly badLength: (c: Context) => Response | Promise<Response>;
}

/**
 * Bounds request bodies to `maxBytes`, for the service and the MCP proxy alike. A body
 * over the limit is answered 413 without being read; the answer closes the connection,
 * which cannot carry another request with the rest of the body unread.
 */
export function requestBodyLimit(maxBytes: number, answers: BodyLimitAnswers): MiddlewareHandler {
  const tooLarge = (c: Context) => {
    c.header('Connection', 'close');
    return answers.tooLarge(c);
  };
  const streamedLimit = bodyLimit({ maxSize: maxBytes, onError: tooLarge });
  return async (c, next) => {
    const length = c.req.header('content-length');
    if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
      // Node's HTTP parser reads exactly Content-Length bytes as this request's body, so
      // the header alone bounds it — and the body is then read without wrapping it in a
      // stream (most of a check's cost on the server was that wrapping).
      if (!/^\d{1,15}$/.test(length.trim())) return answers.badLength(c);
      return Number(length) > maxBytes ? tooLarge(c) : next();
    }
    return streamedLimit(c, next);
  };
}
