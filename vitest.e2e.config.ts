import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

// End-to-end tests against real programs (QEMU, websockify, TigerVNC, remote-viewer, tmux), in
// two projects. `npm test` (scripts/test.mjs) runs them in two lanes side by side; `npm run
// test:e2e` runs them one project after the other (groupOrder):
// - `e2e-pairs`, two files at a time, in the main lane after the unit and integration tests: the
//   files that check protocols, processes and APIs, with no X server, viewer window or terminal
//   whose timing they depend on (PAIRED_E2E_FILES);
// - `e2e`, one file at a time, the screens lane: the rest, each with an X server, viewers or a
//   terminal (or, for type-guest, a real guest typed into at full speed), at the terminal's
//   priority while the main lane yields (scripts/test.mjs). The client matrix stays here: beside
//   the paired files on a machine loaded by other work, two of its GTK viewers ran out of time.
// Timeouts are sized for QEMU under TCG on a loaded machine. Every process a test starts ends with
// the run, however the run ends: the reaper's watchdog, started once per run (globalSetup), ends
// them once vitest is gone (support/reaper.ts); two vitest processes are two runs.
export const PAIRED_E2E_FILES = [
  'kube-control-plane',
  'kubeconfig-forms',
  'kubevirt-real-sessions',
  'kubevirt-scale',
  'hostile-console',
  'hub-kubevirt',
  'joining-kubevirt',
  'kubevirt-real',
  'library-client-crash',
  'libvirt-socket-path',
  'nova-consoles',
  'orphans',
  'power-libvirt',
  'proxy-rfb',
  'recording',
  'rfb-console-client',
  'sshd-support',
  'tls-serial',
  'via-ssh',
  'vnc-auth',
].map((name) => `test/e2e/${name}.e2e.test.ts`);

/** What every end-to-end project shares: the reaper, and timeouts sized for QEMU under TCG. */
export const E2E_SHARED = {
  globalSetup: ['test/e2e/support/reaper-setup.ts'],
  testTimeout: 180_000,
  hookTimeout: 240_000,
  teardownTimeout: 60_000,
};

export const E2E_PROJECTS: TestProjectInlineConfiguration[] = [
  {
    test: {
      ...E2E_SHARED,
      name: 'e2e-pairs',
      sequence: { groupOrder: 1 },
      include: PAIRED_E2E_FILES,
      fileParallelism: true,
      maxWorkers: 2,
    },
  },
  {
    test: {
      ...E2E_SHARED,
      name: 'e2e',
      sequence: { groupOrder: 2 },
      include: ['test/e2e/**/*.e2e.test.ts'],
      exclude: [...PAIRED_E2E_FILES, 'node_modules/**'],
      fileParallelism: false,
      maxWorkers: 1,
    },
  },
];

export default defineConfig({ test: { projects: E2E_PROJECTS } });
