/**
 * intentguard for the Vercel AI SDK (`intentguard/ai-sdk`), v6 and v7. `ai` is an
 * optional peer: nothing here imports it at runtime.
 *
 * - v7: `intentguardToolApproval` (`toolApproval`) + `observeToolResults`
 *   (`onToolExecutionEnd`).
 * - v6: `guardTools` (wraps `needsApproval` and `execute`).
 * - Both: `finishTool` + `isTaskFinished` (`stopWhen`), `syncApprovals` for the next
 *   request of a stateless chat server, `schemaFromAiSdkTools` for the guard's schema.
 */

export type { GuardSource } from '../../guard/adapter-kit/index.js';
export { type FinishTool, type FinishToolOptions, finishTool, isTaskFinished } from './finish.js';
export {
  type GuardRefusal,
  type GuardToolsOptions,
  guardTools,
  isGuardRefusal,
} from './guard-tools.js';
export { syncApprovals } from './messages.js';
export { intentguardToolApproval, observeToolResults } from './tool-approval.js';
export { schemaFromAiSdkTools } from './tool-schema.js';
export type {
  AiSdkToolApprovalOptions,
  AiSdkToolApprovalStatus,
  AiSdkToolCall,
  AiSdkToolExecutionEnd,
} from './types.js';
