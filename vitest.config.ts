import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // End-to-end files (test/e2e) are included: each skips with a one-line reason when a real
    // program it needs is missing (VCONSOLE_E2E=required makes that a failure instead).
    // The single-executable smoke test runs from vitest.sea.config.ts after `npm run package`.
    include: ['src/**/*.test.{ts,tsx}', 'test/**/*.test.{ts,tsx}'],
    exclude: ['test/package/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration tests spawn real processes and sockets; a 2-core CI machine runs
    // two files at a time comfortably.
    maxWorkers: 2,
    // Ink draws only a last frame when it believes it runs in CI (CI set when it loads); `open`
    // loads it without those variables so the TUI draws live on any terminal, and the TUI
    // tests render the same way.
    env: { CI: 'false' },
  },
});
