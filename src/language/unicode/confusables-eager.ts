import { confusablePrototypes } from './confusables.js';
import { provideConfusablePrototypes } from './skeleton.js';

/**
 * Provides the confusables table at once. Imported by the checker, so that every spec
 * checked from its text — the Node entry points, the CLI, the service — has it; a page
 * that reads a compiled spec loads it only when needed (`loadConfusables`).
 */
provideConfusablePrototypes(confusablePrototypes);
