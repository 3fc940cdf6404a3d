import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/browser-page.js';
import { countLit, convertBinary, type RgbImage } from './support/images.js';
import { listeningPortsOf } from './support/net.js';
import { openView, samePicture, startNovncPages, type View, type ViewContext } from './support/matrix-views.js';
import { GiveUp, pollFor } from './support/poll.js';
import { ProcessLab, runProgram } from './support/processes.js';
import { Qmp } from './support/qmp.js';
import { qemuPcArgs } from './support/qemu.js';
import { encodingName, startRfbSniffer, type RfbSniffer, type SniffedSession } from './support/rfb-sniffer.js';
import { E2E_SETUP_TIMEOUT_MS, REPO_ROOT, gatedTitle, requireTools } from './support/tools.js';
import { startProxy } from './support/vconsole.js';
import { VNC_CLIENTS, clientVersion, type VncClient } from './support/vnc-clients.js';
import { startXvfb, type XServer } from './support/xvfb.js';

// The hub's RFB server against every client Debian and npm offer, each beside QEMU's own server
// serving the same VM (the control). One VM whose SeaBIOS shows a 640x480 splash picture until
// ESC, then its 720x400 text boot menu: one key gives a picture, a key reaching the guest, an
// update and a screen-size change, with no guest installed. Any check QEMU's server passes and
// the hub fails is a failing test. `VCONSOLE_MATRIX_DOC=write` writes the table to docs/.
const gate = requireTools([
  'qemu-system-x86_64',
  'Xvfb',
  'xwininfo',
  'xdotool',
  'import',
  'convert',
  'websockify',
  ...new Set(VNC_CLIENTS.flatMap((client) => client.tools)),
]);

const CHECKS = ['connects', 'picture', 'key', 'updates', 'resize', 'password', 'wrong password', 'view-only', 'two at once'] as const;
type Check = (typeof CHECKS)[number];
type Outcome = 'pass' | 'fail' | 'n/a';
const SERVERS = ['QEMU', 'hub'] as const;
type Server = (typeof SERVERS)[number];

interface ClientRow {
  client: VncClient;
  version: string;
  asked: number[];
  pixelFormat?: string;
  sent: Partial<Record<Server, string>>;
  outcomes: Record<Server, Partial<Record<Check, Outcome>>>;
  notes: string[];
}

const PASSWORD = 'mtrx-pw1';
/**
 * How long a client is given to show a picture, and a key or a screen-size change to show. A
 * GTK viewer's first window under Xvfb, beside the other e2e files on two busy cores, took over
 * 20 s in CI (gtk-vnc's clients against QEMU's own server as through the hub).
 */
const SPLASH_WAIT_MS = 40_000;
const CHANGE_WAIT_MS = 15_000;
/**
 * How long the hub is given for a change QEMU's own server did not show the same client either:
 * nothing is asserted on it (only the table shows it), and a client that cannot follow a change
 * (gtk-vnc's resize, Remmina's updates) would otherwise wait out the whole wait twice.
 */
const UNASSERTED_CHANGE_WAIT_MS = 5_000;
/** How long a view-only client's key is given to (not) reach the guest. */
const VIEW_ONLY_WINDOW_MS = 3_000;

describe.skipIf(gate.skip)(gatedTitle('the client matrix: every RFB client against QEMU directly and through the hub', gate), () => {
  const lab = new ProcessLab();
  const rows: ClientRow[] = [];
  let dir: string;
  let x: XServer;
  let qmp: Qmp;
  let browser: Browser | undefined;
  let pages: { base: string; close(): Promise<void> };
  let splash: RgbImage;
  let menu: RgbImage | undefined;
  let lockedScreen: RgbImage;
  const sniffers = new Map<string, RfbSniffer>();
  const websockets = new Map<number, number>();
  let servers: Record<'open' | 'locked' | 'viewOnly', Record<Server, RfbSniffer | undefined>>;
  let openSocket: string;
  let lockedSocket: string;

  async function sniffer(name: string, target: { path: string } | { port: number; host: string }): Promise<RfbSniffer> {
    const made = await startRfbSniffer(target);
    sniffers.set(name, made);
    return made;
  }

  /** websockify in front of a port, for the noVNC pages; one per port, started on first use. */
  async function websocketFor(port: number): Promise<number> {
    const known = websockets.get(port);
    if (known !== undefined) return known;
    const proc = lab.start(`websockify ${port}`, 'websockify', ['127.0.0.1:0', `127.0.0.1:${port}`]);
    const wsPort = await pollFor(
      async () => {
        if (proc.hasExited()) throw new GiveUp(proc.describe());
        return (await listeningPortsOf(proc.pid))[0];
      },
      { what: 'websockify to listen', timeoutMs: 30_000 },
    );
    websockets.set(port, wsPort);
    return wsPort;
  }

  async function context(port: number, client: VncClient, left = 0): Promise<ViewContext> {
    if (client.shape !== 'page') return { lab, x, dir, left };
    browser ??= await launchChromium();
    return { lab, x, dir, browser, webBase: pages.base, wsPort: await websocketFor(port), left };
  }

  /** Resets the VM and waits for its splash picture. */
  async function resetToSplash(): Promise<void> {
    await qmp.execute('system_reset');
    await pollFor(async () => (samePicture(await qmp.screendump(dir), splash) ? true : undefined), {
      what: 'the splash picture after a reset',
      timeoutMs: 60_000,
      intervalMs: 200,
    });
  }

  /** Waits until the guest shows its boot menu (720x400, settled); the first time it becomes the reference. */
  async function awaitMenu(timeoutMs: number): Promise<boolean> {
    let previous: RgbImage | undefined;
    try {
      await pollFor(
        async () => {
          const shot = await qmp.screendump(dir);
          if (shot.width !== 720 || countLit(shot) < 500) return undefined;
          if (menu) return samePicture(shot, menu) ? true : undefined;
          if (previous && samePicture(shot, previous)) {
            menu = shot;
            return true;
          }
          previous = shot;
          return undefined;
        },
        { what: 'the boot menu', timeoutMs, intervalMs: 200 },
      );
      return true;
    } catch {
      return false;
    }
  }

  /** True once `probe` is; false after `timeoutMs`, or at once when one of the views' clients gave up. */
  async function within(timeoutMs: number, probe: () => Promise<boolean>, ...views: View[]): Promise<boolean> {
    try {
      await pollFor(
        async () => {
          if (await probe()) return true;
          const ended = views.map((view) => view.ended()).find(Boolean);
          if (ended) throw new GiveUp(ended);
          return undefined;
        },
        { what: 'a check', timeoutMs, intervalMs: 300 },
      );
      return true;
    } catch {
      return false;
    }
  }

  const lastSession = (s: RfbSniffer): SniffedSession | undefined => s.sessions[s.sessions.length - 1];
  /** The client asked for DesktopSize or ExtendedDesktopSize: a server may send it a new screen size. */
  const asksForSizeChanges = (session: SniffedSession): boolean => session.asked.includes(-223) || session.asked.includes(-308);

  beforeAll(async () => {
    dir = await lab.tempDir('matrix');
    x = await startXvfb(lab);
    const splashFile = join(dir, 'splash.bmp');
    // A high-contrast picture SeaBIOS shows in a 640x480 VBE mode (its splash), until ESC.
    const drawn = await runProgram(convertBinary(), [
      '-size',
      '640x480',
      'xc:black',
      '-fill',
      'white',
      '-draw',
      'rectangle 40,40 200,120',
      '-draw',
      'rectangle 300,200 600,260',
      '-draw',
      'circle 320,400 360,420',
      '-type',
      'TrueColor',
      `BMP3:${splashFile}`,
    ]);
    if (drawn.code !== 0) throw new Error(`convert failed: ${drawn.stderr}`);
    openSocket = join(dir, 'open.vnc');
    lockedSocket = join(dir, 'locked.vnc');
    const qmpPath = join(dir, 'qmp.sock');
    const lockedQmpPath = join(dir, 'locked-qmp.sock');
    lab.start('qemu vm-a', 'qemu-system-x86_64', [
      ...qemuPcArgs('vm-a'),
      '-vnc',
      `unix:${openSocket}`,
      '-qmp',
      `unix:${qmpPath},server=on,wait=off`,
      '-boot',
      `menu=on,splash=${splashFile},splash-time=65535`,
    ]);
    // A second VM behind a VNC password, for the password rows; its text screen settles for good.
    lab.start('qemu vm-locked', 'qemu-system-x86_64', [
      ...qemuPcArgs('vm-locked'),
      '-vnc',
      `unix:${lockedSocket},password=on`,
      '-qmp',
      `unix:${lockedQmpPath},server=on,wait=off`,
      '-boot',
      'menu=off',
    ]);
    qmp = await Qmp.connect(qmpPath);
    const lockedQmp = await Qmp.connect(lockedQmpPath);
    await lockedQmp.execute('change-vnc-password', { password: PASSWORD });
    let previous: RgbImage | undefined;
    lockedScreen = await pollFor(
      async () => {
        const shot = await lockedQmp.screendump(dir);
        const settled = previous && countLit(shot) > 500 && samePicture(shot, previous);
        previous = shot;
        return settled ? shot : undefined;
      },
      { what: 'the locked VM to settle', timeoutMs: 90_000, intervalMs: 1_000 },
    );
    lockedQmp.close();
    splash = await pollFor(
      async () => {
        const shot = await qmp.screendump(dir);
        return shot.width === 640 && countLit(shot) > 10_000 ? shot : undefined;
      },
      { what: 'the splash picture', timeoutMs: 90_000, intervalMs: 250 },
    );
    const upstreamPassword = join(dir, 'upstream-password');
    const viewerPassword = join(dir, 'viewer-password');
    await writeFile(upstreamPassword, `${PASSWORD}\n`, { mode: 0o600 });
    await writeFile(viewerPassword, `${PASSWORD}\n`, { mode: 0o600 });
    const hub = await startProxy(lab, [`unix://${openSocket}`], ['--share']);
    const lockedHub = await startProxy(
      lab,
      [`unix://${lockedSocket}`],
      ['--vnc-password-file', upstreamPassword, '--password-file', viewerPassword],
    );
    const viewOnlyHub = await startProxy(lab, [`unix://${openSocket}`], ['--view-only']);
    servers = {
      open: {
        QEMU: await sniffer('qemu', { path: openSocket }),
        hub: await sniffer('hub', { host: '127.0.0.1', port: hub.ports[0].port }),
      },
      locked: {
        QEMU: await sniffer('qemu-locked', { path: lockedSocket }),
        hub: await sniffer('hub-locked', { host: '127.0.0.1', port: lockedHub.ports[0].port }),
      },
      viewOnly: { QEMU: undefined, hub: await sniffer('hub-view-only', { host: '127.0.0.1', port: viewOnlyHub.ports[0].port }) },
    };
    pages = await startNovncPages({ debian: '/usr/share/novnc', npm: join(REPO_ROOT, 'node_modules', '@novnc', 'novnc') });
  }, E2E_SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await writeTable(rows).catch(() => undefined);
    await browser?.close().catch(() => undefined);
    await pages?.close().catch(() => undefined);
    for (const s of sniffers.values()) await s.close();
    qmp?.close();
    await lab.cleanup();
  }, E2E_SETUP_TIMEOUT_MS);

  /** Connects, picture, key, updates and a screen-size change, against one server. */
  async function mainChecks(row: ClientRow, server: Server): Promise<void> {
    const client = row.client;
    const s = servers.open[server];
    if (!s) return;
    const outcomes = row.outcomes[server];
    await resetToSplash();
    const before = s.sessions.length;
    const view = await openView(client, s.port, { dir, env: x.env }, await context(s.port, client));
    try {
      outcomes.picture = (await within(SPLASH_WAIT_MS, () => view.shows(splash), view)) ? 'pass' : 'fail';
      const session = s.sessions.length > before ? lastSession(s) : undefined;
      outcomes.connects = session?.authenticated || outcomes.picture === 'pass' ? 'pass' : 'fail';
      if (session) {
        row.asked = session.asked.length ? session.asked : row.asked;
        row.pixelFormat = session.pixelFormat
          ? `${session.pixelFormat.bitsPerPixel} bpp${session.pixelFormat.trueColour ? '' : ' colour map'}`
          : row.pixelFormat;
        row.sent[server] = session.firstPixelEncoding === undefined ? '?' : encodingName(session.firstPixelEncoding);
      }
      if (!(await view.escape())) {
        outcomes.key = outcomes.updates = outcomes.resize = 'n/a';
        return;
      }
      const changeWait = (check: Check) =>
        server === 'hub' && row.outcomes.QEMU[check] === 'fail' ? UNASSERTED_CHANGE_WAIT_MS : CHANGE_WAIT_MS;
      outcomes.key = (await awaitMenu(changeWait('key'))) ? 'pass' : 'fail';
      if (outcomes.key === 'fail' || !menu) {
        outcomes.updates = outcomes.resize = 'fail';
        return;
      }
      const reference = menu;
      if (session && !asksForSizeChanges(session)) {
        // Neither server can tell this client of a new size: only the update is looked for.
        outcomes.resize = 'n/a';
        outcomes.updates = (await within(changeWait('updates'), () => view.changedFrom(splash), view)) ? 'pass' : 'fail';
        return;
      }
      const followed = await within(changeWait('resize'), () => view.shows(reference), view);
      outcomes.resize = followed ? 'pass' : 'fail';
      outcomes.updates = followed || (await view.changedFrom(splash)) ? 'pass' : 'fail';
    } finally {
      await view.close();
    }
  }

  /** The right password shows the picture, a wrong one is refused, against one server. */
  async function passwordChecks(row: ClientRow, server: Server): Promise<void> {
    const s = servers.locked[server];
    const outcomes = row.outcomes[server];
    if (!s || !row.client.password) {
      outcomes.password = outcomes['wrong password'] = 'n/a';
      return;
    }
    const right = await openView(row.client, s.port, { dir, env: x.env, password: PASSWORD }, await context(s.port, row.client));
    try {
      outcomes.password = (await within(SPLASH_WAIT_MS, () => right.shows(lockedScreen), right)) ? 'pass' : 'fail';
    } finally {
      await right.close();
    }
    const before = s.sessions.length;
    const wrong = await openView(row.client, s.port, { dir, env: x.env, password: 'wrong-pw' }, await context(s.port, row.client));
    try {
      const refused = await within(SPLASH_WAIT_MS, async () => {
        // A snapshot client connects only when asked for a picture.
        if (await wrong.shows(lockedScreen)) throw new GiveUp('a wrong password showed the screen');
        const session = s.sessions.length > before ? lastSession(s) : undefined;
        if (session?.authenticated === true) throw new GiveUp('a wrong password was accepted');
        return session?.authenticated === false;
      });
      outcomes['wrong password'] = refused && !(await wrong.shows(lockedScreen)) ? 'pass' : 'fail';
    } finally {
      await wrong.close();
    }
  }

  /** Through a --view-only hub: the picture, and the client's key does not reach the guest. */
  async function viewOnlyCheck(row: ClientRow): Promise<void> {
    row.outcomes.QEMU['view-only'] = 'n/a';
    const s = servers.viewOnly.hub;
    if (!s) return;
    await resetToSplash();
    const view = await openView(row.client, s.port, { dir, env: x.env }, await context(s.port, row.client));
    try {
      if (!(await within(SPLASH_WAIT_MS, () => view.shows(splash), view))) {
        row.outcomes.hub['view-only'] = 'fail';
        return;
      }
      const session = lastSession(s);
      const keysBefore = session?.keyEvents ?? 0;
      if (!(await view.escape())) {
        row.outcomes.hub['view-only'] = 'n/a';
        return;
      }
      await within(10_000, () => Promise.resolve((session?.keyEvents ?? 0) > keysBefore));
      // The key went to the hub; it must not reach the guest. A bounded look is the only way to see nothing happen.
      row.outcomes.hub['view-only'] = (await awaitMenu(VIEW_ONLY_WINDOW_MS)) ? 'fail' : 'pass';
    } finally {
      await view.close();
    }
  }

  for (const client of VNC_CLIENTS) {
    it(`${client.name}: QEMU's own server and the hub, check for check`, async () => {
      const row: ClientRow = {
        client,
        version: await clientVersion(client),
        asked: [],
        sent: {},
        outcomes: { QEMU: {}, hub: {} },
        notes: [],
      };
      rows.push(row);
      for (const server of SERVERS) {
        await mainChecks(row, server);
        await passwordChecks(row, server);
      }
      if (row.outcomes.QEMU.picture === 'fail') {
        // QEMU's own server did not get this client its picture either: the client or the X
        // server stumbled (gtk-vnc once, in CI), not the hub. Both are looked at once more.
        row.notes.push("the main checks ran twice: the first time QEMU's own server failed the picture too");
        console.log(`client matrix: ${client.name}: ${row.notes[row.notes.length - 1]}`);
        for (const server of SERVERS) await mainChecks(row, server);
      }
      await viewOnlyCheck(row);
      for (const check of CHECKS) {
        if (row.outcomes.QEMU[check] === 'pass') expect(`${check}: hub ${row.outcomes.hub[check]}`).toBe(`${check}: hub pass`);
      }
      // The hub is what every viewer of `open` talks to: the picture has to arrive.
      expect(row.outcomes.hub.picture).toBe('pass');
    }, 360_000);
  }

  it('two different clients at once: TigerVNC and gvncviewer and noVNC, on QEMU (which lets an exclusive client kick) and on the hub (nobody kicked)', async () => {
    const pair = ['TigerVNC', 'gvncviewer', 'noVNC (npm)'].map((name) => VNC_CLIENTS.find((c) => c.name === name)!);
    const seen: Partial<Record<Server, Outcome>> = {};
    for (const server of SERVERS) {
      const s = servers.open[server]!;
      await resetToSplash();
      const views: View[] = [];
      try {
        for (const [i, client] of pair.entries()) {
          views.push(await openView(client, s.port, { dir, env: x.env }, await context(s.port, client, i * 800)));
          await within(SPLASH_WAIT_MS, () => views[i].shows(splash), views[i]);
        }
        // A client kicked off (or giving up) ends the wait at once: it is not showing the picture.
        const all = await within(
          SPLASH_WAIT_MS,
          async () => (await Promise.all(views.map((v) => v.shows(splash)))).every(Boolean),
          ...views,
        );
        seen[server] = all ? 'pass' : 'fail';
      } finally {
        for (const view of views) await view.close();
      }
      for (const client of pair) {
        const row = rows.find((r) => r.client === client);
        if (row) row.outcomes[server]['two at once'] = seen[server];
      }
    }
    expect(seen.hub).toBe('pass');
  }, 360_000);
});

const TABLE_BEGIN = '<!-- table: written by test/e2e/client-matrix.e2e.test.ts -->';
const TABLE_END = '<!-- end of table -->';

function cell(row: ClientRow, check: Check): string {
  const mark = (o: Outcome | undefined) => (o === 'pass' ? '✓' : o === 'fail' ? '✗' : o === 'n/a' ? '–' : ' ');
  return `${mark(row.outcomes.QEMU[check])} / ${mark(row.outcomes.hub[check])}`;
}

/** The table: one row per client, each check as "QEMU / hub". */
async function writeTable(rows: readonly ClientRow[]): Promise<void> {
  const header = ['client', 'version', 'asks for', 'pixel format', 'QEMU sent', 'hub sent', ...CHECKS];
  const lines = [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((row) => {
      // Pixel encodings in the client's order of preference, then the pseudo-encodings it asks for.
      const asked = [...row.asked.filter((e) => e >= 0 && e < 0x1000), ...row.asked.filter((e) => e < 0 || e >= 0x1000)]
        .map((e) => encodingName(e))
        .join(', ');
      return `| ${[row.client.name, row.version, asked || '?', row.pixelFormat ?? "server's", row.sent.QEMU ?? '?', row.sent.hub ?? '?', ...CHECKS.map((c) => cell(row, c))].join(' | ')} |`;
    }),
  ];
  const table = lines.join('\n') + '\n';
  const results = join(REPO_ROOT, 'test-results');
  await mkdir(results, { recursive: true });
  await writeFile(join(results, 'client-matrix-table.md'), table);
  if (process.env.VCONSOLE_MATRIX_DOC === 'write') {
    // The doc's table sits between two markers; the prose around it stays as written.
    const doc = join(REPO_ROOT, 'docs', 'CLIENT-MATRIX.md');
    const text = await readFile(doc, 'utf8');
    const begin = text.indexOf(TABLE_BEGIN);
    const end = text.indexOf(TABLE_END);
    if (begin < 0 || end < begin) throw new Error(`${doc} has no ${TABLE_BEGIN} ... ${TABLE_END}`);
    await writeFile(doc, `${text.slice(0, begin + TABLE_BEGIN.length)}\n${table}${text.slice(end)}`);
  }
  console.log(`client matrix:\n${table}`);
}
