import { loadToolSchema, type Session, type Verdict } from '../../src/index.js';
import { reviewTools } from './r2-review-tools.js';
import { sessionFor } from './support.js';

/**
 * The review's `list.intent` over its tools (security-round-2.md): the agent lists
 * /reports, then finishes with an answer. Used by the answer-check regressions (E7, E8,
 * E10).
 */

export const listIntent = 'ListFolder(path = "/reports") -> Listed\nListed -> Done\n';

/** A session where `ListFolder("/reports")` ran. */
export function listed(): Session {
  const loaded = loadToolSchema(JSON.stringify(reviewTools));
  if (!loaded.ok) throw new Error('the review tools do not load');
  const session = sessionFor(listIntent, loaded.value);
  const verdict = session.propose({ action: { name: 'ListFolder', args: { path: '/reports' } } });
  if (verdict.decision !== 'allow') throw new Error(`ListFolder: ${verdict.decision}`);
  return session;
}

/** The finish with `answer` after the listing. */
export function finishWith(answer: string): Verdict {
  return listed().propose({ finish: true, answer });
}
