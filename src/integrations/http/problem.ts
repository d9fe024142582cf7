import type { Context } from 'hono';
import type { ServiceProblem } from './sessions.js';

/** The service's error answer: `{code, message}` with its status. */
export function problem(
  c: Context,
  status: ServiceProblem['status'],
  code: string,
  message: string,
) {
  return c.json({ code, message }, status);
}
