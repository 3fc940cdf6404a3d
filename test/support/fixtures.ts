import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test as base } from 'vitest';
import { startVconsole, type RunningVconsole, type StartOptions } from './cli.js';

/**
 * What a test starts and must end, ended after it in reverse order of `add`, pass or fail. Every
 * step runs even when one before it throws; the failures are reported together after the last.
 */
export class Cleanup {
  readonly #steps: (() => unknown)[] = [];

  add(step: () => unknown): void {
    this.#steps.push(step);
  }

  async run(): Promise<void> {
    const failures: unknown[] = [];
    for (const step of this.#steps.splice(0).reverse()) {
      try {
        await step();
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length === 1) throw failures[0];
    if (failures.length > 1) throw new AggregateError(failures, `${failures.length} cleanup steps failed`);
  }
}

/** Starts `bin/vconsole.js` (startVconsole's arguments) and ends each after the test. */
export interface VconsoleStarter {
  start(args: string[], env?: NodeJS.ProcessEnv, where?: StartOptions): RunningVconsole;
}

export interface Fixtures {
  /** Steps run after the test, last added first. */
  cleanup: Cleanup;
  /** A fresh directory of the test's own, removed after it. */
  tmpDir: string;
  /** Makes another fresh directory (its name starts with `label`), removed after the test. */
  makeTmpDir: (label?: string) => string;
  /**
   * vconsole processes, each ended after the test as a user would (SIGINT, so it closes what it
   * started), SIGKILL when it lingers past the grace; ended before the `cleanup` steps run, so
   * the servers it talks to are still there while it shuts down.
   */
  vconsole: VconsoleStarter;
  /** Opens a TCP connection to a local port, destroyed after the test. */
  connect: (port: number, host?: string) => net.Socket;
}

/** vitest's `test` with the fixtures above: `it('…', async ({ vconsole, tmpDir }) => …)`. */
export const test = base.extend<Fixtures>({
  // eslint-disable-next-line no-empty-pattern -- vitest reads the fixtures a fixture needs from this pattern
  cleanup: async ({}, provide) => {
    const cleanup = new Cleanup();
    try {
      await provide(cleanup);
    } finally {
      await cleanup.run();
    }
  },
  makeTmpDir: async ({ cleanup }, provide) => {
    await provide((label = 'vconsole-test') => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${label}-`));
      cleanup.add(() => fs.rmSync(dir, { recursive: true, force: true }));
      return dir;
    });
  },
  tmpDir: async ({ makeTmpDir }, provide) => {
    await provide(makeTmpDir());
  },
  vconsole: async ({ cleanup }, provide) => {
    void cleanup; // set up first so it is torn down last: the processes end before its steps run
    const running: RunningVconsole[] = [];
    try {
      await provide({
        start(args, env, where) {
          const child = startVconsole(args, env, where);
          running.push(child);
          return child;
        },
      });
    } finally {
      await Promise.all(running.map(async (child) => (await child.stop(), await child.exit())));
    }
  },
  connect: async ({ cleanup }, provide) => {
    await provide((port, host = '127.0.0.1') => {
      const socket = net.connect(port, host);
      cleanup.add(() => socket.destroy());
      return socket;
    });
  },
});

export { test as it };
