import { defineConfig } from 'vitest/config';
import { E2E_PROJECTS } from './vitest.e2e.config.js';

// Four projects: the unit tests (src/**) and the integration tests (test/**, but for test/e2e and
// test/package), two files at a time; then the end-to-end files (test/e2e, vitest.e2e.config.ts):
// the protocol-level ones two at a time, the rest one at a time, since each starts VMs and an X
// server or a terminal and a 2-core machine has no room for two of them. `npx vitest run` runs
// them group after group; `npm test` (scripts/test.mjs) runs the last project, `e2e`, as a lane of
// its own beside the others. Each end-to-end file skips with a one-line reason when a real program
// it needs is missing (VCONSOLE_E2E=required makes that a failure instead). The single-executable
// smoke test runs from vitest.sea.config.ts after `npm run package`.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.{ts,tsx}'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
          // Integration tests spawn real processes and sockets; a 2-core CI machine runs
          // two files at a time comfortably.
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
          // Ink draws only a last frame when it believes it runs in CI (CI set when it loads); `open`
          // loads it without those variables so the TUI draws live on any terminal, and the TUI
          // tests render the same way.
          env: { CI: 'false' },
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.{ts,tsx}'],
          exclude: ['test/e2e/**/*.e2e.test.ts', 'test/package/**', 'node_modules/**'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
          env: { CI: 'false' },
        },
      },
      ...E2E_PROJECTS,
    ],
  },
});
