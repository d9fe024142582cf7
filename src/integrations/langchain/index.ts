/**
 * intentguard for LangChain.js v1 agents (`createAgent`): a middleware that checks every
 * tool call against the spec, asks a person through LangGraph interrupts, and ends the
 * run only when the task is done. LangChain is an optional peer: this module imports
 * nothing of it at run time.
 */

export type { GuardSource } from '../../guard/adapter-kit/index.js';
export {
  type IntentguardApprovalRequest,
  type IntentguardApprovalResponse,
  isIntentguardApprovalRequest,
} from './approvals.js';
export { IntentguardMiddlewareError, type IntentguardMiddlewareErrorCode } from './errors.js';
export {
  type IntentguardMiddleware,
  type IntentguardMiddlewareOptions,
  intentguardMiddleware,
  intentguardStateSchema,
  journalStateKey,
} from './middleware.js';
export { type LangChainToolSchemaOptions, schemaFromLangChainTools } from './tool-schema.js';
