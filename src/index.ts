/**
 * intentguard — formal intent specs for LLM agents.
 *
 * The root entry is runtime-neutral (browsers, React Native, edge runtimes): the
 * intent language, schema loading and the verification engine. Node-only parts live
 * behind subpath exports such as `intentguard/node`.
 *
 * @example
 * import { checkSpec, createSession, loadToolSchema } from 'intentguard';
 * const schema = loadToolSchema(mcpToolsListResult);
 * const spec = checkSpec(specText, schema.value!);
 * const session = createSession(spec.value!, { now: new Date() });
 * const verdict = session.propose({ action: { name: 'BankTransfer', args: { to: 'Alice', amount: 500 } } });
 */
export * from './engine/index.js';
// guard
export {
  createGuard,
  type Guard,
  type GuardAction,
  type GuardDecision,
  type GuardEvent,
  type GuardJournal,
  GuardJournalError,
  type GuardOptions,
  type GuardStatus,
  type JournalEvent,
  renderForModel,
  renderForPerson,
  restoreGuard,
  type ToolCall,
  type ToolOutcome,
  toolResultObservation,
} from './guard/index.js';
export * from './language/index.js';
export * from './schema/index.js';
