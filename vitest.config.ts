import { defineConfig } from 'vitest/config';

// Every e2e file launches its own Chromium; two workers is what a 2-core machine can run
// without actions starting to time out.
export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.spec.ts', 'tests/**/*.spec.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    retry: 0,
  },
});
