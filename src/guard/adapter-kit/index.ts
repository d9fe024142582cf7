/**
 * What every adapter (src/integrations/*) builds on, so that the frameworks differ only in
 * their hooks and shapes: where the guard comes from, the fail-closed check and finish,
 * and the refusals the model reads, by code, in one English rendering.
 */
export { checkOrRefuse } from './fail-closed.js';
export { finishOrRefuse } from './finish.js';
export { checkGuardSource, type GuardSource, resolveGuard } from './guard-source.js';
export { jsonSchemaOf } from './json-schema-of.js';
export {
  type Refusal,
  type RefusalCode,
  refusalCodes,
  refusalDecision,
  renderRefusal,
  type UncheckedRefusal,
} from './refusals.js';
