import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    // Vitest's default is one worker per core but one, i.e. a single worker on a 2-core CI
    // machine; many tests wait on child processes (servers, browsers, PostgreSQL), so two
    // workers keep both cores busy.
    maxWorkers: 2,
  },
});
