import { defineConfig } from 'vitest/config';

// End-to-end tests against real programs (QEMU, websockify, TigerVNC, remote-viewer, tmux):
// two files at a time. Each starts VMs and an X server; every wait in them is for a condition,
// sized for QEMU under TCG on a loaded machine, so two files side by side on two cores pass (all
// 44 did at load 5-8, in 711 s against 1073 s one at a time), and the client matrix (7 minutes
// of viewers starting and timing out) no longer holds the rest up. `npm test`
// runs these after the unit and integration tests (groupOrder), `npm run test:e2e` alone.
// Every process a test starts ends with the run, however the run ends: the reaper's watchdog,
// started here once per run (globalSetup), ends them once vitest is gone (support/reaper.ts).
export default defineConfig({
  test: {
    name: 'e2e',
    sequence: { groupOrder: 1 },
    include: ['test/e2e/**/*.e2e.test.ts'],
    globalSetup: ['test/e2e/support/reaper-setup.ts'],
    fileParallelism: true,
    maxWorkers: 2,
    testTimeout: 180_000,
    hookTimeout: 240_000,
    teardownTimeout: 60_000,
  },
});
