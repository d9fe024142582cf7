/**
 * Autoformalization: a natural-language instruction plus a schema in, a checked
 * Intent spec out — through an LLM behind a narrow model interface, with repair,
 * a semantic check, voting and experience memory. Runtime-neutral: no file access
 * (recordings are text the caller reads and writes).
 */

export {
  canonicalSpecText,
  createMajoritySession,
  type MajorityGroup,
  MajoritySession,
  type MajorityVerdict,
} from '../engine/majority-session.js';
export {
  type AiSdkModelOptions,
  aiSdkChatModel,
  aiSdkEmbeddingModel,
  defaultTimeoutMs,
  parseRetryAfter,
} from './ai-sdk.js';
export {
  createEmbeddingSimilarity,
  type EmbeddingSimilarity,
  type EmbeddingSimilarityOptions,
  textsInSpec,
} from './embedding-similarity.js';
export type {
  EmbeddingCache,
  Experience,
  ExperienceOutcome,
  ExperienceQuery,
  ExperienceSource,
} from './experience.js';
export {
  type FormalizeFailure,
  type FormalizeFailureCode,
  formalizeFailureCodes,
} from './failures.js';
export {
  type AttemptOutcome,
  type AttemptStage,
  type Formalization,
  type FormalizeAttempt,
  type FormalizeMode,
  type FormalizeOptions,
  type FormalizeProgress,
  type FormalizeReport,
  type FormalizeResult,
  formalize,
  type PromptReport,
  predicatesOf,
  type SampleOutcome,
  type VotedSpec,
} from './formalize.js';
export { formalizeLimits } from './limits.js';
export {
  addUsage,
  type ChatMessage,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  type EmbeddingModel,
  type EmbeddingResponse,
  ModelError,
  type ModelErrorCode,
  type ModelPurpose,
  noUsage,
  type TokenUsage,
} from './model.js';
export { addCost, estimateCost, type ModelPrice, modelPrices, priceOf } from './pricing.js';
export { describeNow, quoteInstruction } from './prompts/context.js';
export { encoderSystemPrompt, encoderUserPrompt, type PromptExperience } from './prompts/encode.js';
export { renderExamples, type WorkedExample, workedExamples } from './prompts/examples.js';
export type { Discrepancy } from './prompts/feedback.js';
export {
  createChatModel,
  createEmbeddingModel,
  type ModelConfig,
  type ModelSpecifier,
  type ProviderName,
  parseModelSpecifier,
  providerInfo,
} from './providers.js';
export {
  type RecordEntry,
  type RecordedChat,
  type RecordedEmbedding,
  type RecordedRun,
  Recording,
  recordingChatModel,
  recordingEmbeddingModel,
  replayChatModel,
  replayEmbeddingModel,
} from './recording.js';
export { type PredicateSelection, type RelevanceOptions, selectPredicates } from './relevance.js';
export {
  type CheckerVerdict,
  extractJson,
  type GoalAnalysis,
  parseCheckerReply,
  parseGoalReply,
} from './reply.js';
export {
  defaultRetryOptions,
  type RetryOptions,
  retryDelay,
  retryingChatModel,
  retryingEmbeddingModel,
} from './retry.js';
export { isToolSchema, renderSignature, renderSignatures } from './signatures.js';
