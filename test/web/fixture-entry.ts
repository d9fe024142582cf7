/// <reference lib="dom" />
// The test page's library: the engine and intentguard/web, bundled for the browser the
// way an app bundles them, and handed to the tests' page scripts.
import { specText } from '../../examples/web/spec.js';
import { restaurantStates } from '../../examples/web/states.js';
import { createGuard, loadComposedGuard } from '../../src/index.js';
import {
  confirmWithDialog,
  createWebGuard,
  defineStates,
  verdictEventName,
} from '../../src/integrations/web/index.js';

Object.assign(window, {
  lib: {
    createGuard,
    loadComposedGuard,
    createWebGuard,
    defineStates,
    confirmWithDialog,
    verdictEventName,
    specText,
    restaurantStates,
  },
});
