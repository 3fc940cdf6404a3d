import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { ConsoleKind } from '../console-kinds/index.js';
import { vncKind } from '../console-kinds/vnc.js';
import type { ViewerCandidate, ViewerTarget } from './types.js';
import { planViewers, viewerConsoleType } from './viewer-plan.js';
import { ViewerRouter, type ViewerLauncher } from './viewer-router.js';
import type { ViewerStatusEvent } from './viewer-supervisor.js';

const remoteViewer: ViewerCandidate = { id: 'remote-viewer', name: 'remote-viewer (virt-viewer)', path: '/usr/bin/remote-viewer' };
const tigervnc: ViewerCandidate = { id: 'tigervnc', name: 'TigerVNC', path: '/usr/bin/vncviewer' };

describe('planViewers', () => {
  it('sends SPICE to remote-viewer when the chosen viewer cannot show it, and says so', () => {
    const plan = planViewers({ kind: 'viewer', viewer: tigervnc, source: 'flag', extraArgs: ['-FullScreen'] }, [remoteViewer, tigervnc]);
    expect(plan.routes.vnc).toEqual({ kind: 'native', viewer: tigervnc, extraArgs: ['-FullScreen'] });
    expect(plan.routes.spice).toEqual({ kind: 'native', viewer: remoteViewer, extraArgs: [] });
    expect(plan.routes.serial).toBeUndefined();
    expect(plan.notices.spice).toBe('TigerVNC cannot show SPICE: SPICE consoles open in remote-viewer (virt-viewer)');
  });

  it('keeps remote-viewer for both when it is the choice, with nothing to say', () => {
    const plan = planViewers({ kind: 'viewer', viewer: remoteViewer, source: 'preference', extraArgs: [] }, [remoteViewer]);
    expect(plan.routes.spice).toEqual(plan.routes.vnc);
    expect(plan.notices).toEqual({});
  });

  it('with no SPICE viewer installed, serves the port and says what to install', () => {
    const plan = planViewers({ kind: 'viewer', viewer: tigervnc, source: 'preference', extraArgs: [] }, [tigervnc]);
    expect(plan.routes.spice).toBeUndefined();
    expect(plan.notices.spice).toMatch(/no SPICE viewer found .*install virt-viewer/);
  });

  it('the browser shows screens and serial lines; with nothing installed it stands in for the VNC viewer', () => {
    const asked = planViewers({ kind: 'browser', source: 'flag' }, [remoteViewer]);
    expect(asked.routes).toEqual({
      vnc: { kind: 'browser' },
      serial: { kind: 'browser' },
      spice: { kind: 'native', viewer: remoteViewer, extraArgs: [] },
    });
    const fallback = planViewers({ kind: 'not-found' }, []);
    expect(fallback.routes).toEqual({ vnc: { kind: 'browser' } });
    expect(fallback.notices.vnc).toBe('no VNC viewer found: screens open in the browser instead (--viewer browser)');
  });

  it('--viewer none launches nothing for any console', () => {
    expect(planViewers({ kind: 'none', source: 'flag' }, [remoteViewer])).toEqual({ routes: {}, notices: {} });
  });

  it('reads a session console type, vnc when unset', () => {
    expect([viewerConsoleType(undefined), viewerConsoleType('serial'), viewerConsoleType('spice')]).toEqual(['vnc', 'serial', 'spice']);
  });

  it('refuses a console type no kind has instead of showing it as VNC', () => {
    expect(() => viewerConsoleType('rdp-html5')).toThrow('unknown console type "rdp-html5": no viewer is known to show it');
  });

  it('routes a new kind from its data alone: a screen no viewer shows is said, a page-only console gets no route', () => {
    const kinds: ConsoleKind[] = [
      { ...vncKind },
      {
        ...vncKind,
        id: 'x-screen',
        label: 'Frame',
        urlScheme: undefined,
        sharing: 'none',
        recording: 'none',
        reads: undefined,
        autoRank: 3,
      },
      { ...vncKind, id: 'x-page', label: 'X-Page', carriage: 'browser', autoRank: undefined },
    ];
    const plan = planViewers({ kind: 'viewer', viewer: remoteViewer, source: 'flag', extraArgs: [] }, [remoteViewer, tigervnc], kinds);
    expect(Object.keys(plan.routes)).toEqual(['vnc']);
    expect(plan.notices).toEqual({
      'x-screen': 'no Frame viewer found (vconsole knows none that shows Frame): point a Frame client at the ports shown',
    });
  });
});

/** A launcher that records what it was asked, for routing checks. */
class RecordingLauncher extends EventEmitter<{ status: [ViewerStatusEvent] }> implements ViewerLauncher {
  readonly calls: string[] = [];
  constructor(readonly label: string) {
    super();
  }
  launch(key: number, target: Omit<ViewerTarget, 'extraArgs'>): Promise<void> {
    this.calls.push(`launch ${key} ${target.consoleType ?? 'vnc'}`);
    this.emit('status', { key, state: 'open', viewerName: this.label });
    return Promise.resolve();
  }
  stop(key: number): Promise<void> {
    this.calls.push(`stop ${key}`);
    return Promise.resolve();
  }
  stopAll(): Promise<void> {
    this.calls.push('stopAll');
    return Promise.resolve();
  }
  killAllNow(): void {
    this.calls.push('killAllNow');
  }
  noteConsoleClient(key: number): void {
    this.calls.push(`client ${key}`);
  }
}

describe('ViewerRouter', () => {
  const target = (consoleType: 'vnc' | 'spice' | 'serial') => ({ host: '127.0.0.1', port: 5900, consoleType });

  it('launches each console in the viewer of its kind, makes each launcher once and says a notice once', async () => {
    const made: RecordingLauncher[] = [];
    const router = new ViewerRouter(
      planViewers({ kind: 'viewer', viewer: tigervnc, source: 'flag', extraArgs: [] }, [remoteViewer, tigervnc]),
      {
        native: (viewer) => {
          const launcher = new RecordingLauncher(viewer.id);
          made.push(launcher);
          return launcher;
        },
        browser: () => Promise.reject(new Error('not expected')),
      },
    );
    const notices: string[] = [];
    const statuses: string[] = [];
    router.on('notice', (text) => notices.push(text));
    router.on('status', (event) => statuses.push(`${event.key} ${event.viewerName}`));
    await router.launch(1, target('vnc'));
    await router.launch(2, target('spice'));
    await router.launch(3, target('spice'));
    await router.launch(4, target('serial'));
    expect(made.map((l) => l.label)).toEqual(['tigervnc', 'remote-viewer']);
    expect(made[0].calls).toEqual(['launch 1 vnc']);
    expect(made[1].calls).toEqual(['launch 2 spice', 'launch 3 spice']);
    expect(statuses).toEqual(['1 tigervnc', '2 remote-viewer', '3 remote-viewer']);
    expect(notices).toEqual(['TigerVNC cannot show SPICE: SPICE consoles open in remote-viewer (virt-viewer)']);
    expect(router.shows('serial')).toBe(false);

    router.noteConsoleClient(2);
    await router.stop(2);
    await router.stopAll();
    router.killAllNow();
    expect(made[1].calls.slice(2)).toEqual(['client 2', 'stop 2', 'stopAll', 'killAllNow']);
  });

  it('launches nothing for a console type no kind has, and says why', async () => {
    const tiger = new RecordingLauncher('tigervnc');
    const router = new ViewerRouter(planViewers({ kind: 'viewer', viewer: tigervnc, source: 'flag', extraArgs: [] }, [tigervnc]), {
      native: () => tiger,
      browser: () => Promise.reject(new Error('not expected')),
    });
    await expect(router.launch(1, { host: '127.0.0.1', port: 5900, consoleType: 'bogus' as 'vnc' })).rejects.toThrow(
      'unknown console type "bogus"',
    );
    expect(tiger.calls).toEqual([]);
  });

  it('loads the browser viewer only when a console first opens in it, and again after a failed load', async () => {
    let loads = 0;
    const browser = new RecordingLauncher('browser');
    const router = new ViewerRouter(planViewers({ kind: 'browser', source: 'flag' }, []), {
      native: () => {
        throw new Error('not expected');
      },
      browser: () => (++loads === 1 ? Promise.reject(new Error('no page')) : Promise.resolve(browser)),
    });
    expect(loads).toBe(0);
    await expect(router.launch(1, target('vnc'))).rejects.toThrow('no page');
    await router.launch(1, target('vnc'));
    await router.launch(2, target('serial'));
    expect(loads).toBe(2);
    expect(browser.calls).toEqual(['launch 1 vnc', 'launch 2 serial']);
  });
});
