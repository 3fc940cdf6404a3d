import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  installStubbornViewer,
  isRunning,
  killLeftovers,
  processesWithMarker,
  startedPids,
  uniqueMarker,
  type StubbornViewerInstall,
} from '../../test/fixtures/viewer-processes.js';
import { waitFor } from '../../test/support/wait.js';
import { ViewerSupervisor, type ViewerStatusEvent } from './viewer-supervisor.js';

const TARGET = { host: '127.0.0.1', port: 5999, title: 'vm' };

let stubborn: StubbornViewerInstall;
const markers: string[] = [];

beforeAll(() => (stubborn = installStubbornViewer()));
afterAll(() => stubborn.remove());
afterEach(() => {
  for (const marker of markers.splice(0)) killLeftovers(marker);
});

/** A supervisor of stand-ins that ignore SIGTERM, found later by a marker argument only they have. */
function stubbornSupervisor(env: Record<string, string> = {}) {
  const marker = uniqueMarker();
  markers.push(marker);
  const log = stubborn.newLog();
  const supervisor = new ViewerSupervisor({ id: 'custom', name: 'stand-in', path: stubborn.path }, [marker], {
    graceMs: 200,
    env: { ...process.env, STUBBORN_VIEWER_LOG: log, ...env },
  });
  const events: ViewerStatusEvent[] = [];
  supervisor.on('status', (event) => events.push(event));
  return { supervisor, marker, log, events };
}

describe('ViewerSupervisor', () => {
  it('ten quick launches for one key: one viewer at a time, the last one tracked, none left after stopAll', async () => {
    const { supervisor, marker, events } = stubbornSupervisor({ STUBBORN_VIEWER_NO_CHILD: '1' });
    await supervisor.launch(1, TARGET);
    await waitFor(() => processesWithMarker(marker).length === 1, 'the first viewer to run');
    // Whenever a viewer opens, every viewer before it is gone already: at most the new one runs.
    const runningAtOpen: number[] = [];
    supervisor.on('status', (event) => {
      if (event.state === 'open') runningAtOpen.push(processesWithMarker(marker).length);
    });

    await Promise.all(Array.from({ length: 10 }, () => supervisor.launch(1, TARGET)));
    expect(events.filter((e) => e.state === 'open')).toHaveLength(2);
    expect(runningAtOpen).toHaveLength(1);
    expect(runningAtOpen[0]).toBeLessThanOrEqual(1);
    await waitFor(() => processesWithMarker(marker).length === 1, 'the last viewer to run');

    await supervisor.stop(1);
    expect(processesWithMarker(marker)).toEqual([]);
    await supervisor.stopAll();
    expect(processesWithMarker(marker)).toEqual([]);
  });

  it('stopAll() right after ten launches not yet done: no viewer left, none started after', async () => {
    const { supervisor, marker } = stubbornSupervisor({ STUBBORN_VIEWER_NO_CHILD: '1' });
    await supervisor.launch(1, TARGET);
    const launches = Array.from({ length: 10 }, () => supervisor.launch(1, TARGET));
    await supervisor.stopAll();
    await Promise.all(launches);
    expect(processesWithMarker(marker)).toEqual([]);
    await supervisor.launch(2, TARGET);
    expect(processesWithMarker(marker)).toEqual([]);
  });

  it('stop() ends a wrapper viewer and the child it started, both ignoring SIGTERM', async () => {
    const { supervisor, marker, log } = stubbornSupervisor();
    await supervisor.launch(1, TARGET);
    await waitFor(() => startedPids(stubborn.entries(log)).length === 2, 'the viewer and its child to start');
    const pids = startedPids(stubborn.entries(log));
    await supervisor.stop(1);
    await waitFor(() => !pids.some(isRunning), 'the viewer and its child to be gone');
    expect(processesWithMarker(marker)).toEqual([]);
  });

  it('killAllNow() kills every viewer tree before it returns, also one still in its stop grace', async () => {
    const { supervisor, marker, log } = stubbornSupervisor();
    await supervisor.launch(1, TARGET);
    await supervisor.launch(2, TARGET);
    await waitFor(() => startedPids(stubborn.entries(log)).length === 4, 'two viewers and their children to start');
    const pids = startedPids(stubborn.entries(log));
    const stopping = supervisor.stop(1, 60_000);
    supervisor.killAllNow();
    // SIGKILL is delivered before kill() returns; only the reaping is left.
    await waitFor(() => !pids.some(isRunning), 'every viewer process to be gone');
    await stopping;
    await supervisor.launch(3, TARGET);
    expect(processesWithMarker(marker)).toEqual([]);
  });

  it('a viewer that fails carries the reason in its status message', async () => {
    const supervisor = new ViewerSupervisor({ id: 'custom', name: 'stand-in', path: process.execPath }, [
      '-e',
      'process.stderr.write("(stand-in:42): Gtk-WARNING **: 20:24:22.777: cannot open display: \\n"); process.exit(1)',
    ]);
    const failed = new Promise<ViewerStatusEvent>((resolve) => supervisor.on('status', (e) => e.state === 'failed' && resolve(e)));
    await supervisor.launch(1, TARGET);
    expect(await failed).toMatchObject({
      key: 1,
      state: 'failed',
      exitCode: 1,
      message: 'stand-in exited at once with code 1: cannot open display',
    });
  });
});
