/// <reference lib="dom" />
/**
 * intentguard/web — the developer library for web apps driven by GUI agents (the
 * VeriSafe Agent design). The app declares its states, wraps its UI actions in
 * pre-action triggers that report the anticipated state change before the app's handler
 * runs, and reports observed facts; the guard (in the page or the HTTP service) decides,
 * and every verdict is published for the agent to read. Runs in browsers: no Node APIs.
 *
 * @example
 * import { createGuard } from 'intentguard';
 * import { createWebGuard, defineStates } from 'intentguard/web';
 * const states = defineStates({ … });
 * const web = createWebGuard({ guard: createGuard(specText, states.schema, { finishWaitsForResults: false }) });
 * web.guardAction('#pay', { action: 'PayDeposit', args: () => ({ amount: Number(amountInput.value) }) });
 * web.observe({ PaymentResult: { success: true } });
 */
export type { RemoteOptions, WebFailureCode } from './backend.js';
export { createWebGuard } from './controller.js';
export { type ConfirmRequest, confirmWithDialog } from './dialog-on-demand.js';
export type {
  ActionContext,
  GuardActionOptions,
  TriggerKind,
  WebGuard,
  WebGuardOptions,
} from './options.js';
export {
  type PublishedState,
  type PublishedVerdict,
  type VerdictStatus,
  verdictEventName,
} from './publish.js';
export {
  type DefinedStates,
  defineStates,
  type StateDeclaration,
  type StatesDeclaration,
  type StateVariable,
} from './states.js';
