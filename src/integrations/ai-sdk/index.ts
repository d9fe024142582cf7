/**
 * intentguard for the Vercel AI SDK (`intentguard/ai-sdk`), v6 and v7. `ai` is an
 * optional peer: nothing here imports it at runtime.
 *
 * - v7: `intentguardToolApproval` (`toolApproval`) + `observeToolResults`
 *   (`onToolExecutionEnd`).
 * - v6: `guardTools` (wraps `needsApproval` and `execute`).
 * - Both: `finishTool` + `isTaskFinished` (`stopWhen`), `syncApprovals` for the next
 *   request of a stateless chat server, `schemaFromAiSdkTools` for the guard's schema,
 *   `pendingPrompt` for the guard's question on a v6 approval request.
 * - A run wired so that a tool could run unchecked stops with an `AiSdkSetupError`.
 */

export type { GuardSource } from '../../guard/adapter-kit/index.js';
export { AiSdkSetupError, type AiSdkSetupErrorCode } from './errors.js';
export { type FinishTool, type FinishToolOptions, finishTool, isTaskFinished } from './finish.js';
export { type GuardRefusal, isGuardRefusal } from './guard-refusal.js';
export { type GuardToolsOptions, guardTools } from './guard-tools.js';
export { syncApprovals } from './messages.js';
export { pendingPrompt } from './pending-prompt.js';
export { intentguardToolApproval, observeToolResults } from './tool-approval.js';
export { schemaFromAiSdkTools } from './tool-schema.js';
export type {
  AiSdkToolApprovalOptions,
  AiSdkToolApprovalStatus,
  AiSdkToolCall,
  AiSdkToolExecutionEnd,
} from './types.js';
