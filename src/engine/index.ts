// Sessions, majority sessions and explanations from here have every engine part by
// default (all-parts.ts); the engine's modules take only the parts they are given.
export { type ClockInput, createClock, type SessionClock } from './clock.js';
export { type CompiledSpec, compileSpec } from './compiled-spec.js';
export type { EngineParts } from './engine-parts.js';
export {
  type ExplainedRule,
  type ExplainOptions,
  type Explanation,
  explainSpec,
} from './explain.js';
export type { IntentSession } from './intent-session.js';
export { lexicalSimilarity } from './lexical-similarity.js';
export {
  createMajoritySession,
  type MajorityGroup,
  MajoritySession,
  type MajorityVerdict,
} from './majority-session.js';
export {
  type NormalizedProposal,
  type ProposalProblem,
  type ProposalProblemCode,
  proposalFingerprint,
  proposalProblemCodes,
} from './proposal.js';
export {
  type HistoryEntry,
  internalErrorVerdict,
  NoSpecSession,
  type ObservationResult,
  type ResolutionResult,
  type SessionOptions,
  type SessionStatus,
} from './session.js';
export { createSession, Session } from './session-all-parts.js';
export { defaultSimilarityThreshold, type SimilarityFunction } from './similarity.js';
export {
  describeExpectation,
  expectationMismatch,
  formatTrace,
  type ParsedTrace,
  parseTrace,
  readTrace,
  type TraceEvent,
  type TraceEventKind,
  type TraceExpectation,
  type TraceProblem,
  type TraceProblemCode,
  traceProblemCodes,
} from './trace.js';
export { formatValue, parseValue, type Value, type ValueOptions } from './values.js';
export {
  type Decision,
  type Reason,
  type ReasonCode,
  reasonCodes,
  reasonDecisions,
  type Severity,
  type Verdict,
} from './verdict.js';
