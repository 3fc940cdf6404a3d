import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/browser-page.js';
import type { RgbImage } from './support/images.js';
import { listeningPortsOf } from './support/net.js';
import { openView, startNovncPages, type View, type ViewContext } from './support/matrix-views.js';
import { drawSplash, startLockedVm, startSplashVm, type SplashVm } from './support/matrix-vms.js';
import { GiveUp, pollFor } from './support/poll.js';
import { ProcessLab } from './support/processes.js';
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
// QEMU's column and the hub's are checked at the same time, each in a lane of its own (its own
// VMs, X server and browser), so that neither waits while the other's client starts or times out.
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
  outcomes: Record<Server, Partial<Record<Check, Outcome>>>;
  /** The session each server's sniffer saw when the client's picture was checked: what it asked for, what was sent. */
  seen: Partial<Record<Server, SniffedSession>>;
}

const PASSWORD = 'mtrx-pw1';
/**
 * How long a client is given to show a picture, and a key or a screen-size change to show. A
 * GTK viewer's first window under Xvfb, beside the other e2e files on two busy cores, took over
 * 20 s in CI (gtk-vnc's clients against QEMU's own server as through the hub).
 */
const SPLASH_WAIT_MS = 40_000;
const CHANGE_WAIT_MS = 15_000;
/** How long a view-only client's key is given to (not) reach the guest. */
const VIEW_ONLY_WINDOW_MS = 3_000;

/**
 * Where one server's checks run: a splash VM and a locked VM of its own (QEMU lets a client
 * that does not share kick the others, so no lane's client may reach another's VM), the
 * server's sniffers in front of them, and an X server and a browser of its own (windows of one
 * client in two lanes would otherwise be told apart by nothing). A third lane, a VM and X
 * server behind a --view-only hub, takes the view-only check after QEMU's lane is done.
 */
interface Lane {
  server: Server;
  dir: string;
  x: XServer;
  vm: SplashVm;
  open: RfbSniffer;
  locked?: { sniffer: RfbSniffer; screen: RgbImage };
  browser?: Promise<Browser>;
}

describe.skipIf(gate.skip)(gatedTitle('the client matrix: every RFB client against QEMU directly and through the hub', gate), () => {
  const lab = new ProcessLab();
  const rows: ClientRow[] = [];
  let lanes: Record<Server, Lane>;
  /** Its server is a --view-only hub (QEMU has no view-only mode: its column is n/a). */
  let viewOnlyLane: Lane;
  let pages: { base: string; close(): Promise<void> };
  const sniffers: RfbSniffer[] = [];
  const websockets = new Map<number, Promise<number>>();

  async function sniffer(target: { path: string } | { port: number; host: string }): Promise<RfbSniffer> {
    const made = await startRfbSniffer(target);
    sniffers.push(made);
    return made;
  }

  /** websockify in front of a port, for the noVNC pages; one per port, started on first use. */
  function websocketFor(port: number): Promise<number> {
    const known = websockets.get(port);
    if (known !== undefined) return known;
    const proc = lab.start(`websockify ${port}`, 'websockify', ['127.0.0.1:0', `127.0.0.1:${port}`]);
    const wsPort = pollFor(
      async () => {
        if (proc.hasExited()) throw new GiveUp(proc.describe());
        return (await listeningPortsOf(proc.pid))[0];
      },
      { what: 'websockify to listen', timeoutMs: 30_000 },
    );
    websockets.set(port, wsPort);
    return wsPort;
  }

  async function context(lane: Lane, port: number, client: VncClient, left = 0): Promise<ViewContext> {
    const base = { lab, x: lane.x, dir: lane.dir, left };
    if (client.shape !== 'page') return base;
    lane.browser ??= launchChromium();
    return { ...base, browser: await lane.browser, webBase: pages.base, wsPort: await websocketFor(port) };
  }

  function open(lane: Lane, client: VncClient, port: number, password?: string, left = 0): Promise<View> {
    return context(lane, port, client, left).then((c) => openView(client, port, { dir: lane.dir, env: lane.x.env, password }, c));
  }

  /** True once `probe` is; false after `timeoutMs`, or at once when the view's client gave up. */
  async function within(timeoutMs: number, probe: () => Promise<boolean>, ...views: View[]): Promise<boolean> {
    try {
      await pollFor(
        async () => {
          if (await probe()) return true;
          const ended = views.map((view) => view.ended()).find(Boolean);
          if (ended) throw new GiveUp(ended);
          return undefined;
        },
        { what: 'a check', timeoutMs, intervalMs: 200 },
      );
      return true;
    } catch {
      return false;
    }
  }

  const lastSession = (s: RfbSniffer): SniffedSession | undefined => s.sessions[s.sessions.length - 1];

  type LaneKind = Server | 'view-only';

  /** Starts a lane's X server and VMs, and the server under test in front of them. */
  async function startLane(kind: LaneKind, splashFile: string, lockedHubArgs: string[]): Promise<Lane> {
    const dir = await lab.tempDir(`matrix-${kind}`);
    const [x, vm, locked] = await Promise.all([
      startXvfb(lab),
      startSplashVm(lab, dir, `vm-${kind}`, splashFile),
      kind === 'view-only' ? undefined : startLockedVm(lab, dir, `vm-${kind}-locked`, PASSWORD),
    ]);
    const server = kind === 'QEMU' ? 'QEMU' : 'hub';
    const front = async (socket: string, hubArgs: string[]) => {
      if (kind === 'QEMU') return sniffer({ path: socket });
      const hub = await startProxy(lab, [`unix://${socket}`], hubArgs);
      return sniffer({ host: '127.0.0.1', port: hub.ports[0].port });
    };
    const [open, lockedSniffer] = await Promise.all([
      front(vm.socket, kind === 'view-only' ? ['--view-only'] : ['--share']),
      locked && front(locked.socket, lockedHubArgs),
    ]);
    return { server, dir, x, vm, open, locked: locked && lockedSniffer && { sniffer: lockedSniffer, screen: locked.screen } };
  }

  beforeAll(async () => {
    const dir = await lab.tempDir('matrix');
    const splashFile = await drawSplash(dir);
    const upstreamPassword = join(dir, 'upstream-password');
    const viewerPassword = join(dir, 'viewer-password');
    await writeFile(upstreamPassword, `${PASSWORD}\n`, { mode: 0o600 });
    await writeFile(viewerPassword, `${PASSWORD}\n`, { mode: 0o600 });
    const lockedHubArgs = ['--vnc-password-file', upstreamPassword, '--password-file', viewerPassword];
    const [qemuLane, hubLane, viewOnly, novnc] = await Promise.all([
      startLane('QEMU', splashFile, lockedHubArgs),
      startLane('hub', splashFile, lockedHubArgs),
      startLane('view-only', splashFile, lockedHubArgs),
      startNovncPages({ debian: '/usr/share/novnc', npm: join(REPO_ROOT, 'node_modules', '@novnc', 'novnc') }),
    ]);
    lanes = { QEMU: qemuLane, hub: hubLane };
    viewOnlyLane = viewOnly;
    pages = novnc;
  }, E2E_SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await writeTable(rows).catch(() => undefined);
    for (const lane of [...Object.values(lanes ?? {}), ...(viewOnlyLane ? [viewOnlyLane] : [])]) {
      await (await lane.browser?.catch(() => undefined))?.close().catch(() => undefined);
      lane.vm.close();
    }
    await pages?.close().catch(() => undefined);
    for (const s of sniffers) await s.close();
    await lab.cleanup();
  }, E2E_SETUP_TIMEOUT_MS);

  /** Connects, picture, key, updates and a screen-size change, against one lane's server. */
  async function mainChecks(row: ClientRow, lane: Lane): Promise<void> {
    const { vm, open: s } = lane;
    const outcomes = row.outcomes[lane.server];
    await vm.resetToSplash();
    const before = s.sessions.length;
    const view = await open(lane, row.client, s.port);
    try {
      outcomes.picture = (await within(SPLASH_WAIT_MS, () => view.shows(vm.splash), view)) ? 'pass' : 'fail';
      const session = s.sessions.length > before ? lastSession(s) : undefined;
      outcomes.connects = session?.authenticated || outcomes.picture === 'pass' ? 'pass' : 'fail';
      row.seen[lane.server] = session;
      if (!(await view.escape())) {
        outcomes.key = outcomes.updates = outcomes.resize = 'n/a';
        return;
      }
      outcomes.key = (await vm.awaitMenu(CHANGE_WAIT_MS)) ? 'pass' : 'fail';
      const menu = vm.menu();
      if (outcomes.key === 'fail' || !menu) {
        outcomes.updates = outcomes.resize = 'fail';
        return;
      }
      const followed = await within(CHANGE_WAIT_MS, () => view.shows(menu), view);
      outcomes.resize = followed ? 'pass' : 'fail';
      outcomes.updates = followed || (await view.changedFrom(vm.splash)) ? 'pass' : 'fail';
    } finally {
      await view.close();
    }
  }

  /** The right password shows the picture, a wrong one is refused, against one lane's server. */
  async function passwordChecks(row: ClientRow, lane: Lane): Promise<void> {
    const outcomes = row.outcomes[lane.server];
    if (!lane.locked || !row.client.password) {
      outcomes.password = outcomes['wrong password'] = 'n/a';
      return;
    }
    const { sniffer: s, screen: lockedScreen } = lane.locked;
    const right = await open(lane, row.client, s.port, PASSWORD);
    try {
      outcomes.password = (await within(SPLASH_WAIT_MS, () => right.shows(lockedScreen), right)) ? 'pass' : 'fail';
    } finally {
      await right.close();
    }
    const before = s.sessions.length;
    const wrong = await open(lane, row.client, s.port, 'wrong-pw');
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
    const lane = viewOnlyLane;
    const viewOnly = lane.open;
    row.outcomes.QEMU['view-only'] = 'n/a';
    await lane.vm.resetToSplash();
    const before = viewOnly.sessions.length;
    const view = await open(lane, row.client, viewOnly.port);
    try {
      if (!(await within(SPLASH_WAIT_MS, () => view.shows(lane.vm.splash), view))) {
        row.outcomes.hub['view-only'] = 'fail';
        return;
      }
      const session = viewOnly.sessions.length > before ? lastSession(viewOnly) : undefined;
      const keysBefore = session?.keyEvents ?? 0;
      if (!(await view.escape())) {
        row.outcomes.hub['view-only'] = 'n/a';
        return;
      }
      await within(10_000, () => Promise.resolve((session?.keyEvents ?? 0) > keysBefore));
      // The key went to the hub; it must not reach the guest. A bounded look is the only way to see nothing happen.
      row.outcomes.hub['view-only'] = (await lane.vm.awaitMenu(VIEW_ONLY_WINDOW_MS)) ? 'fail' : 'pass';
    } finally {
      await view.close();
    }
  }

  /** Runs `parts` at once; waits for all before reporting the first failure. */
  async function allAtOnce(parts: Promise<void>[]): Promise<void> {
    const settled = await Promise.allSettled(parts);
    for (const result of settled) if (result.status === 'rejected') throw result.reason;
  }

  /**
   * Runs each lane's part of a client's checks: at once, but for a client whose sessions live in
   * this process (rfb2), whose lanes take turns as they did before lanes ran at once: two of its
   * sessions at once slowed each other severalfold and once lost the hub's password row.
   */
  async function inLanes(client: VncClient, parts: (() => Promise<void>)[]): Promise<void> {
    if (client.shape !== 'library' || !client.inProcess) return allAtOnce(parts.map((part) => part()));
    for (const part of parts) await part();
  }
  const inBothLanes = (part: (lane: Lane) => Promise<void>) => allAtOnce(SERVERS.map((server) => part(lanes[server])));

  for (const client of VNC_CLIENTS) {
    it(`${client.name}: QEMU's own server and the hub, check for check`, async () => {
      const row: ClientRow = { client, version: await clientVersion(client), outcomes: { QEMU: {}, hub: {} }, seen: {} };
      rows.push(row);
      // The view-only check follows QEMU's (the shorter column): three clients at once starved two busy cores.
      await inLanes(client, [
        ...SERVERS.map((server) => async () => {
          await mainChecks(row, lanes[server]);
          await passwordChecks(row, lanes[server]);
          if (server === 'QEMU') await viewOnlyCheck(row);
        }),
      ]);
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
    await inBothLanes(async (lane) => {
      const { vm, open: s } = lane;
      await vm.resetToSplash();
      const views: View[] = [];
      try {
        for (const [i, client] of pair.entries()) {
          views.push(await open(lane, client, s.port, undefined, i * 800));
          await within(SPLASH_WAIT_MS, () => views[i].shows(vm.splash), views[i]);
        }
        // A client kicked off (or giving up) ends the wait at once: it is not showing the picture.
        const all = await within(
          SPLASH_WAIT_MS,
          async () => (await Promise.all(views.map((v) => v.shows(vm.splash)))).every(Boolean),
          ...views,
        );
        seen[lane.server] = all ? 'pass' : 'fail';
      } finally {
        for (const view of views) await view.close();
      }
      for (const client of pair) {
        const row = rows.find((r) => r.client === client);
        if (row) row.outcomes[lane.server]['two at once'] = seen[lane.server];
      }
    });
    expect(seen.hub).toBe('pass');
  }, 360_000);
});

const TABLE_BEGIN = '<!-- table: written by test/e2e/client-matrix.e2e.test.ts -->';
const TABLE_END = '<!-- end of table -->';

function cell(row: ClientRow, check: Check): string {
  const mark = (o: Outcome | undefined) => (o === 'pass' ? '✓' : o === 'fail' ? '✗' : o === 'n/a' ? '–' : ' ');
  return `${mark(row.outcomes.QEMU[check])} / ${mark(row.outcomes.hub[check])}`;
}

/** The table's order: VNC_CLIENTS's. */
const byClientOrder = (a: ClientRow, b: ClientRow) => VNC_CLIENTS.indexOf(a.client) - VNC_CLIENTS.indexOf(b.client);

/** The table: one row per client, each check as "QEMU / hub". */
async function writeTable(rows: readonly ClientRow[]): Promise<void> {
  const header = ['client', 'version', 'asks for', 'pixel format', 'QEMU sent', 'hub sent', ...CHECKS];
  const lines = [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...[...rows].sort(byClientOrder).map((row) => {
      const sessions = [row.seen.hub, row.seen.QEMU];
      const askedFor = sessions.find((session) => session?.asked.length)?.asked ?? [];
      // Pixel encodings in the client's order of preference, then the pseudo-encodings it asks for.
      const asked = [...askedFor.filter((e) => e >= 0 && e < 0x1000), ...askedFor.filter((e) => e < 0 || e >= 0x1000)]
        .map((e) => encodingName(e))
        .join(', ');
      const format = sessions.find((session) => session?.pixelFormat)?.pixelFormat;
      const pixelFormat = format ? `${format.bitsPerPixel} bpp${format.trueColour ? '' : ' colour map'}` : "server's";
      const sent = (server: Server) => {
        const first = row.seen[server]?.firstPixelEncoding;
        return first === undefined ? '?' : encodingName(first);
      };
      return `| ${[row.client.name, row.version, asked || '?', pixelFormat, sent('QEMU'), sent('hub'), ...CHECKS.map((c) => cell(row, c))].join(' | ')} |`;
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
