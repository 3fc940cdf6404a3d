import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.{ts,tsx}', 'test/**/*.test.{ts,tsx}'],
    exclude: ['test/e2e/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration tests spawn real processes and sockets; a 2-core CI machine runs
    // two files at a time comfortably.
    maxWorkers: 2,
  },
});
