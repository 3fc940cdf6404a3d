import { defineConfig } from 'vitest/config';

// End-to-end tests against real programs (QEMU, websockify, TigerVNC, remote-viewer, tmux):
// one file at a time, since each starts VMs and an X server and a 2-core machine has no room
// for two such files at once; timeouts sized for QEMU under TCG on a loaded machine. `npm test`
// runs these after the unit and integration tests (groupOrder), `npm run test:e2e` alone.
// Every process a test starts ends with the run, however the run ends: the reaper's watchdog,
// started here once per run (globalSetup), ends them once vitest is gone (support/reaper.ts).
export default defineConfig({
  test: {
    name: 'e2e',
    sequence: { groupOrder: 1 },
    include: ['test/e2e/**/*.e2e.test.ts'],
    globalSetup: ['test/e2e/support/reaper-setup.ts'],
    fileParallelism: false,
    maxWorkers: 1,
    testTimeout: 180_000,
    hookTimeout: 240_000,
    teardownTimeout: 60_000,
  },
});
