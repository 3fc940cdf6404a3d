// vitest globalSetup of the e2e projects (vitest.e2e.config.ts): starts the run's reaper in the
// vitest process, before any worker, so every worker and all they start carry the run's marker
// and the watchdog ends them all once vitest ends, however it ends (reaper.ts). Both e2e projects
// name it; the run has one reaper, started by whichever comes first.
import { awaitWatching, startRun } from './reaper.js';

const STARTED = Symbol.for('vconsole.e2e.reaperStarted');

export default async function setup(): Promise<void> {
  const host = process as unknown as Record<symbol, Promise<void> | undefined>;
  host[STARTED] ??= (async () => {
    const { watchdog } = startRun();
    await awaitWatching(watchdog);
  })();
  await host[STARTED];
}
