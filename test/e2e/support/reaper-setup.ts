// vitest globalSetup of the e2e project (vitest.e2e.config.ts): starts the run's reaper in the
// vitest process, before any worker, so every worker and all they start carry the run's marker
// and the watchdog ends them all once vitest ends, however it ends (reaper.ts).
import { awaitWatching, startRun } from './reaper.js';

export default async function setup(): Promise<void> {
  const { watchdog } = startRun();
  await awaitWatching(watchdog);
}
