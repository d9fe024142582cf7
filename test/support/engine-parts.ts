/**
 * Registers the engine's parts that a page loads on demand (the evaluators of paths and
 * bindings, the fabricated-action check), as every Node entry point does (engine/index.ts,
 * the root guard): tests that import an engine module directly then run the engine as
 * Node programs do. What a page loads and when is tested in the browser (test/web) and on
 * the bundles (src/integrations/web/architecture.test.ts).
 */
import '../../src/engine/parts-eager.js';
