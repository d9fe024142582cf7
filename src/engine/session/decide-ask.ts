import type { Verdict } from '../verdict.js';
import { type DecisionHost, noReasons } from './decision.js';

/** v2: a question to the user is always allowed, and ends the session as `asked`. */
export function decideAsk(host: DecisionHost): Verdict {
  host.commit({ updates: [], rules: [], finish: true });
  host.endAsked();
  return host.verdict(
    'allow',
    undefined,
    noReasons,
    [],
    'The question goes to the user; this session is over.',
  );
}
