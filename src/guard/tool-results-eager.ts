import { provideToolResultReader } from './tool-result-reader.js';
import { toolResultObservation } from './tool-results.js';

/**
 * Registers at once the reader of tools' outputs, which a page's guard from a compiled
 * spec loads on demand (tool-result-reader.ts). Imported by the root guard.
 */
provideToolResultReader(toolResultObservation);
