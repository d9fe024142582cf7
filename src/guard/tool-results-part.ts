import { evaluators } from '../engine/on-demand-part.js';
import { toolResultObservation } from './tool-results.js';

/*
 * The reader of tools' outputs as a page's guard loads it on demand (tool-result-reader.ts),
 * with the engine's on-demand part: on its own, it would share the page's small helpers
 * (support/) with a different set of modules than the engine's part does, and the bundler
 * would split what the page loads up front into one more file (docs/web.md).
 */
export { evaluators, toolResultObservation };
