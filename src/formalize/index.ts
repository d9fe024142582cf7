/**
 * Autoformalization: a natural-language instruction plus a schema in, a checked
 * Intent spec out — through an LLM behind a narrow model interface, with repair,
 * a semantic check, voting and experience memory. Runtime-neutral: no file access
 * (recordings are text the caller reads and writes).
 *
 * The complete public surface of `intentguard/formalize`, pinned by
 * `test/architecture/public-api.test.ts`: named exports only. Prompt building and
 * reply parsing are internals. `MajoritySession`, which enforces all the specs a
 * formalization voted on, is exported from the root (`intentguard`).
 */

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
export { formalizeLimits } from './limits.js';
export {
  type AiSdkModelOptions,
  aiSdkChatModel,
  aiSdkEmbeddingModel,
} from './model/ai-sdk-chat-model.js';
export {
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
} from './model/model.js';
export { estimateCost, type ModelPrice, modelPrices } from './model/pricing.js';
export {
  createChatModel,
  createEmbeddingModel,
  type ModelConfig,
  type ModelSpecifier,
  type ProviderName,
  parseModelSpecifier,
  providerInfo,
} from './model/providers.js';
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
} from './model/recording.js';
export {
  defaultRetryOptions,
  type RetryOptions,
  retryingChatModel,
  retryingEmbeddingModel,
} from './model/retry.js';
export { formalize } from './pipeline/formalize.js';
export {
  type FormalizeRun,
  type FormalizeRunOptions,
  type NewExperience,
  runFormalize,
} from './pipeline/formalize-run.js';
export { formalizeRunJson } from './pipeline/report-json.js';
export type {
  AttemptOutcome,
  AttemptStage,
  Formalization,
  FormalizeAttempt,
  FormalizeMode,
  FormalizeOptions,
  FormalizeProgress,
  FormalizeReport,
  FormalizeResult,
  PromptReport,
  SampleOutcome,
  VotedSpec,
} from './pipeline/types.js';
export type { PromptExperience } from './prompts/encode.js';
export type { Discrepancy } from './prompts/feedback.js';
export type { PredicateSelection, RelevanceOptions } from './relevance.js';
