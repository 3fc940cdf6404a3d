import { defineConfig } from 'vitest/config';

// `npm run package` output: the single-executable smoke test (CI sets VCONSOLE_SEA=required).
export default defineConfig({
  test: {
    include: ['test/package/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    maxWorkers: 1,
  },
});
