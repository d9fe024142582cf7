/**
 * intentguard inside the OpenAI Agents SDK for JS (`@openai/agents` ^0.20, an optional
 * peer: this module imports none of it at run time). Every function tool's call is
 * checked before it runs (`needsApproval` and tool guardrails), confirmations become the
 * SDK's interruptions, failed calls are rolled back, and the run ends only when the
 * guard says the task is done. Persist `guard.journal()` beside `RunState.toString()`.
 */

export type { GuardSource } from '../../guard/adapter-kit/index.js';
export {
  type FinishToolOptions,
  type FinishToolSettings,
  finishBehavior,
  finishToolOptions,
} from './finish.js';
export {
  type ApprovalRequest,
  answerInterruption,
  type ResolvedInterruptions,
  resolveInterruptions,
} from './interruptions.js';
export { type OpenAiAgentsToolSchemaOptions, schemaFromOpenAiAgentsTools } from './schema.js';
export {
  type IntentguardToolOptions,
  type IntentguardToolSettings,
  intentguardToolOptions,
} from './tool-options.js';
export type {
  ApprovalItemLike,
  AppToolGuardrail,
  FunctionCallLike,
  FunctionToolLike,
  FunctionToolResultLike,
  RunContextLike,
  RunStateLike,
  ToolCallDetailsLike,
  ToolErrorFunctionLike,
  ToolGuardrailOutputLike,
  ToolInputGuardrailLike,
  ToolOutputGuardrailLike,
  ToolsToFinalOutputResultLike,
} from './types.js';
