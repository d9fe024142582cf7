import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    // The engine's on-demand parts, registered as the Node entry points do.
    setupFiles: ['test/support/engine-parts.ts'],
  },
});
