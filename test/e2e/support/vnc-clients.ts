import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readImage, type RgbImage } from './images.js';
import { runProgram, type ProcessLab, type RunningProcess } from './processes.js';
import { withRunMarker } from './reaper.js';
import { REPO_ROOT } from './tools.js';

/**
 * The RFB clients of the matrix (test/e2e/client-matrix.e2e.test.ts): every one that installs
 * from Debian or npm in one command. PyPI's (vncdotool, asyncvnc) and go-vnc are left out: CI
 * reaches only Debian's and npm's registries.
 *
 * A client is one of four shapes, by how the test sees its picture and gives it a key:
 * - `window`: an X client under Xvfb; its window is photographed, keys go through xdotool;
 * - `snapshot`: a program that saves one picture and exits;
 * - `page`: noVNC in Chromium, through websockify; the canvas is read, keys through puppeteer;
 * - `library`: an npm client driven in this process: its framebuffer is read, keys are its calls.
 */
export type VncClient = WindowClient | SnapshotClient | PageClient | LibraryClient;

interface ClientBase {
  name: string;
  /** Where it comes from: a Debian package or an npm package. */
  source: { debian: string } | { npm: string };
  /** Programs it needs on PATH. */
  tools: string[];
  /** Whether it can be given a password without a person typing it. */
  password: boolean;
}

export interface ClientOptions {
  /** A file holding the password (first line). */
  passwordFile?: string;
  password?: string;
  dir: string;
  /** The environment a window client opens its windows with (the test's Xvfb). */
  env: NodeJS.ProcessEnv;
}

export interface WindowClient extends ClientBase {
  shape: 'window';
  /** WM_CLASS class of its VM window. */
  className: string;
  /** A size to give its window first, for a viewer whose window opens smaller than the VM's screen. */
  windowSize?: { width: number; height: number };
  /**
   * How a key reaches it without a window manager: `focus` (xdotool windowfocus, then the key;
   * a click would reach TigerVNC's VM first) or `click` (pointer in and a click first: Xt
   * viewers such as TightVNC's and ssvnc's take keys only so).
   */
  keysAfter: 'focus' | 'click';
  start(lab: ProcessLab, port: number, options: ClientOptions): Promise<RunningProcess>;
}

export interface SnapshotClient extends ClientBase {
  shape: 'snapshot';
  /** One picture of the server's screen; rejects when the client fails (refused, wrong password). */
  capture(port: number, options: ClientOptions): Promise<RgbImage>;
}

export interface PageClient extends ClientBase {
  shape: 'page';
  /** The page's URL for a websocket on `wsPort`, given the static server's base URL. */
  url(base: string, wsPort: number, password?: string): string;
  /** The directory the static server serves for this page. */
  webRoot: string;
}

/** A session of a library client: its own framebuffer, keys sent through it. */
export interface LibrarySession {
  picture(): RgbImage | undefined;
  key(keysym: number): void;
  failed(): string | undefined;
  close(): void;
}

export interface LibraryClient extends ClientBase {
  shape: 'library';
  connect(port: number, options: ClientOptions): LibrarySession;
}

/** The installed version of a Debian package or an npm package, for the table. */
export async function clientVersion(client: VncClient): Promise<string> {
  if ('npm' in client.source) {
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules', client.source.npm, 'package.json'), 'utf8')) as {
      version: string;
    };
    return manifest.version;
  }
  const run = await runProgram('dpkg-query', ['-W', '-f', '${Version}', client.source.debian]);
  return run.stdout.trim() || '?';
}

/** TightVNC's obfuscated password file (`vncpasswd -f`), which TigerVNC, TightVNC and vncsnapshot read. */
export async function obfuscatedPasswordFile(dir: string, password: string): Promise<string> {
  const file = join(dir, `vncpasswd-${password.length}-${Date.now()}`);
  const run = await runProgram('sh', ['-c', `printf '%s\\n' "$1" | tightvncpasswd -f > "$2"`, 'sh', password, file]);
  if (run.code !== 0) throw new Error(`tightvncpasswd -f failed: ${run.stderr}`);
  return file;
}

/** `127.0.0.1:DISPLAY` for a port: gtk-vnc's tools know displays, not ports (the test's ports are all above 5900). */
function gtkVncAddress(port: number): string {
  if (port < 5900) throw new Error(`gtk-vnc's tools cannot reach port ${port} (below 5900)`);
  return `127.0.0.1:${port - 5900}`;
}

function spawnWindow(lab: ProcessLab, name: string, command: string, args: string[], env: NodeJS.ProcessEnv): RunningProcess {
  return lab.start(name, command, args, { env });
}

const tigervnc: WindowClient = {
  name: 'TigerVNC',
  source: { debian: 'tigervnc-viewer' },
  tools: ['xtigervncviewer', 'tightvncpasswd'],
  password: true,
  shape: 'window',
  className: 'TigerVNC Viewer',
  keysAfter: 'focus',
  async start(lab, port, options) {
    const auth = options.password ? ['-passwd', await obfuscatedPasswordFile(options.dir, options.password)] : [];
    return spawnWindow(lab, 'TigerVNC', 'xtigervncviewer', [...auth, '-Shared', '-AlertOnFatalError=0', `127.0.0.1::${port}`], options.env);
  },
};

const remoteViewer: WindowClient = {
  name: 'remote-viewer',
  source: { debian: 'virt-viewer' },
  tools: ['remote-viewer'],
  password: false,
  shape: 'window',
  className: 'Remote-viewer',
  keysAfter: 'click',
  start: (lab, port, options) =>
    Promise.resolve(spawnWindow(lab, 'remote-viewer', 'remote-viewer', [`vnc://127.0.0.1:${port}`], options.env)),
};

const gvncviewer: WindowClient = {
  name: 'gvncviewer',
  source: { debian: 'gvncviewer' },
  tools: ['gvncviewer'],
  password: false,
  shape: 'window',
  className: 'Gvncviewer',
  keysAfter: 'click',
  // It follows a screen-size change inside its window but keeps the window's size (640 wide after
  // the splash, cropping the 720-wide menu): its resize row fails against QEMU's server too.
  // gtk-vnc's tools take HOST:DISPLAY only, the port being 5900 + DISPLAY.
  start: (lab, port, options) => Promise.resolve(spawnWindow(lab, 'gvncviewer', 'gvncviewer', [gtkVncAddress(port)], options.env)),
};

const vinagre: WindowClient = {
  name: 'vinagre',
  source: { debian: 'vinagre' },
  tools: ['vinagre'],
  password: false,
  shape: 'window',
  className: 'Vinagre',
  keysAfter: 'click',
  // It opens at 650x500 and crops the screen to that; larger, it shows it whole at 1:1, centred.
  windowSize: { width: 1100, height: 800 },
  start: (lab, port, options) => Promise.resolve(spawnWindow(lab, 'vinagre', 'vinagre', [`vnc://127.0.0.1::${port}`], options.env)),
};

const remmina: WindowClient = {
  name: 'Remmina',
  source: { debian: 'remmina-plugin-vnc' },
  tools: ['remmina'],
  password: false,
  shape: 'window',
  className: 'org.remmina.Remmina',
  keysAfter: 'click',
  windowSize: { width: 1100, height: 800 },
  start(lab, port, options) {
    // A profile of its own in a temp HOME, so no earlier run's settings (scaling, quality) count.
    const env = { ...options.env, HOME: options.dir, XDG_CONFIG_HOME: join(options.dir, '.config') };
    return Promise.resolve(lab.start('Remmina', 'remmina', ['-c', `vnc://127.0.0.1:${port}`], { env }));
  },
};

const xtightvncviewer: WindowClient = {
  name: 'xtightvncviewer',
  source: { debian: 'xtightvncviewer' },
  tools: ['xtightvncviewer', 'tightvncpasswd'],
  password: true,
  shape: 'window',
  className: 'Vncviewer',
  keysAfter: 'click',
  async start(lab, port, options) {
    const auth = options.password ? ['-passwd', await obfuscatedPasswordFile(options.dir, options.password)] : [];
    return spawnWindow(lab, 'xtightvncviewer', 'xtightvncviewer', [...auth, '-shared', `127.0.0.1::${port}`], options.env);
  },
};

const ssvnc: WindowClient = {
  name: 'ssvnc',
  source: { debian: 'ssvnc' },
  tools: ['ssvncviewer', 'tightvncpasswd'],
  password: true,
  shape: 'window',
  className: 'Ssvnc',
  keysAfter: 'click',
  async start(lab, port, options) {
    const auth = options.password ? ['-passwd', await obfuscatedPasswordFile(options.dir, options.password)] : [];
    // -nobell/-noraiseonbeep: no dialogs; its "chat" window (class Ssvnc too) is smaller than the screen.
    return spawnWindow(lab, 'ssvnc', 'ssvncviewer', [...auth, '-shared', '-noraiseonbeep', `127.0.0.1::${port}`], options.env);
  },
};

const vncsnapshot: SnapshotClient = {
  name: 'vncsnapshot',
  source: { debian: 'vncsnapshot' },
  tools: ['vncsnapshot', 'tightvncpasswd'],
  password: true,
  shape: 'snapshot',
  async capture(port, options) {
    const file = join(options.dir, `vncsnapshot-${port}-${Date.now()}.jpg`);
    const auth = options.password ? ['-passwd', await obfuscatedPasswordFile(options.dir, options.password)] : [];
    const run = await runProgram('vncsnapshot', [...auth, '-allowblank', '-quality', '100', `127.0.0.1::${port}`, file], {
      timeoutMs: 30_000,
    });
    if (run.code !== 0) throw new Error(`vncsnapshot exited with ${run.code}: ${run.stderr.trim()}`);
    return readImage(file);
  },
};

const gvnccapture: SnapshotClient = {
  name: 'gvnccapture',
  source: { debian: 'gvncviewer' },
  tools: ['gvnccapture'],
  password: false,
  shape: 'snapshot',
  async capture(port, options) {
    const file = join(options.dir, `gvnccapture-${port}-${Date.now()}.png`);
    const run = await runProgram('gvnccapture', [gtkVncAddress(port), file], { timeoutMs: 30_000 });
    if (run.code !== 0) throw new Error(`gvnccapture exited with ${run.code}: ${run.stderr.trim()}`);
    return readImage(file);
  },
};

/** Net::VNC's vnccapture in an 8-bit colour-map pixel format: the case a server must translate palettes for. */
const netVnc: SnapshotClient = {
  name: 'Net::VNC (8-bit colour map)',
  source: { debian: 'libnet-vnc-perl' },
  tools: ['vnccapture'],
  password: true,
  shape: 'snapshot',
  async capture(port, options) {
    const file = join(options.dir, `vnccapture-${port}-${Date.now()}.png`);
    const auth = options.password ? ['--password', options.password] : [];
    const run = await runProgram('vnccapture', ['--host', '127.0.0.1', '--port', String(port), '--depth', '8', ...auth, '-o', file], {
      timeoutMs: 30_000,
    });
    if (run.code !== 0 || /error|failed|refused/i.test(run.stderr))
      throw new Error(`vnccapture exited with ${run.code}: ${run.stderr.trim()}`);
    return readImage(file);
  },
};

const novncDebian: PageClient = {
  name: 'noVNC (Debian)',
  source: { debian: 'novnc' },
  tools: ['chromium', 'websockify'],
  password: true,
  shape: 'page',
  webRoot: '/usr/share/novnc',
  url: (base, wsPort, password) =>
    `${base}/vnc_lite.html?host=127.0.0.1&port=${wsPort}&path=&scale=false${password ? `&password=${encodeURIComponent(password)}` : ''}`,
};

const novncNpm: PageClient = {
  name: 'noVNC (npm)',
  source: { npm: '@novnc/novnc' },
  tools: ['chromium', 'websockify'],
  password: true,
  shape: 'page',
  webRoot: join(REPO_ROOT, 'node_modules', '@novnc', 'novnc'),
  url: (base, wsPort, password) => `${base}/__matrix__.html?port=${wsPort}${password ? `&password=${encodeURIComponent(password)}` : ''}`,
};

/** The page the static server answers for `/__matrix__.html`: noVNC's RFB on a canvas, nothing else. */
export const NOVNC_NPM_PAGE = `<!doctype html><html><body style="margin:0"><div id="screen"></div><script type="module">
import RFB from './core/rfb.js';
const q = new URLSearchParams(location.search);
const rfb = new RFB(document.getElementById('screen'), 'ws://127.0.0.1:' + q.get('port') + '/', q.get('password') ? { credentials: { password: q.get('password') } } : {});
rfb.scaleViewport = false;
rfb.addEventListener('connect', () => { document.body.dataset.state = 'connected'; });
rfb.addEventListener('disconnect', () => { document.body.dataset.state = 'closed'; });
rfb.addEventListener('securityfailure', () => { document.body.dataset.state = 'refused'; });
window.rfb = rfb;
</script></body></html>`;

const requireCjs = createRequire(import.meta.url);

/**
 * vnc-rfb-client (npm), run in a process of its own (vnc-rfb-client-host.mjs): its decoders throw
 * where no caller can catch it when a rectangle overruns its framebuffer, which in this process
 * would be an unhandled rejection failing the whole run. The host sends its picture as it changes.
 */
const vncRfbClient: LibraryClient = {
  name: 'vnc-rfb-client',
  source: { npm: 'vnc-rfb-client' },
  tools: [],
  // Its VNC authentication calls DES through node:crypto, which OpenSSL 3 no longer offers (it
  // throws there, unhandled), so it is given no password.
  password: false,
  shape: 'library',
  connect(port, options) {
    const host = spawn(process.execPath, [fileURLToPath(new URL('./vnc-rfb-client-host.mjs', import.meta.url)), String(port)], {
      cwd: REPO_ROOT,
      env: withRunMarker({ ...process.env, ...(options.password ? { VNC_PASSWORD: options.password } : {}) }),
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let failure: string | undefined;
    let latest: RgbImage | undefined;
    host.on('error', (error) => (failure ??= `vnc-rfb-client host: ${error.message}`));
    host.on('close', (code, signal) => (failure ??= `vnc-rfb-client host exited (${signal ?? code})`));
    host.stdin.on('error', () => undefined);
    createInterface({ input: host.stdout }).on('line', (line) => {
      let message: { frame?: { width: number; height: number; rgb: string }; failed?: string };
      try {
        message = JSON.parse(line) as typeof message;
      } catch {
        failure ??= `vnc-rfb-client host printed something else: ${line.slice(0, 80)}`;
        return;
      }
      if (message.frame)
        latest = { width: message.frame.width, height: message.frame.height, pixels: Buffer.from(message.frame.rgb, 'base64') };
      if (message.failed) failure ??= message.failed;
    });
    return {
      picture: () => latest,
      key(keysym) {
        host.stdin.write(`${JSON.stringify({ key: keysym })}\n`);
      },
      failed: () => failure,
      close() {
        host.stdin.end();
        if (host.exitCode === null) setTimeout(() => host.kill('SIGKILL'), 2000).unref();
      },
    };
  },
};

interface Rfb2Rect {
  x: number;
  y: number;
  width: number;
  height: number;
  encoding: number;
  data?: Buffer;
  src?: { x: number; y: number };
}
interface Rfb2Client {
  on(event: string, listener: (...args: never[]) => void): void;
  requestUpdate(incremental: boolean, x: number, y: number, width: number, height: number): void;
  keyEvent(keysym: number, down: number): void;
  end(): void;
  width: number;
  height: number;
}

/** rfb2 (npm): Raw and CopyRect only; its rectangles are painted into a framebuffer kept here. */
const rfb2: LibraryClient = {
  name: 'rfb2',
  source: { npm: 'rfb2' },
  tools: [],
  password: true,
  shape: 'library',
  connect(port, options) {
    const { createConnection } = requireCjs('rfb2') as { createConnection(params: Record<string, unknown>): Rfb2Client };
    const client = createConnection({ host: '127.0.0.1', port, password: options.password ?? '', shared: true });
    let failure: string | undefined;
    let image: RgbImage | undefined;
    client.on('error', (err: Error) => (failure = err.message));
    client.on('connect', () => {
      image = { width: client.width, height: client.height, pixels: Buffer.alloc(client.width * client.height * 3) };
      client.requestUpdate(false, 0, 0, client.width, client.height);
    });
    client.on('rect', (rect: Rfb2Rect) => {
      if (!image) return;
      if (rect.encoding === -223) {
        image = { width: rect.width, height: rect.height, pixels: Buffer.alloc(rect.width * rect.height * 3) };
        client.requestUpdate(false, 0, 0, rect.width, rect.height);
        return;
      }
      const target = image;
      if (rect.encoding === 0 && rect.data) {
        // rfb2 asks for 32 bpp little-endian BGRX.
        for (let y = 0; y < rect.height; y++)
          for (let x = 0; x < rect.width; x++) {
            const from = (y * rect.width + x) * 4;
            const to = ((rect.y + y) * target.width + rect.x + x) * 3;
            target.pixels[to] = rect.data[from + 2];
            target.pixels[to + 1] = rect.data[from + 1];
            target.pixels[to + 2] = rect.data[from];
          }
      } else if (rect.encoding === 1 && rect.src) {
        const copy = Buffer.from(target.pixels);
        for (let y = 0; y < rect.height; y++)
          copy.copy(
            target.pixels,
            ((rect.y + y) * target.width + rect.x) * 3,
            ((rect.src.y + y) * target.width + rect.src.x) * 3,
            ((rect.src.y + y) * target.width + rect.src.x + rect.width) * 3,
          );
      }
      client.requestUpdate(true, 0, 0, target.width, target.height);
    });
    return {
      picture: () => image,
      key(keysym) {
        client.keyEvent(keysym, 1);
        client.keyEvent(keysym, 0);
      },
      failed: () => failure,
      close: () => client.end(),
    };
  },
};

/** Every client of the matrix, in the order of its table. */
export const VNC_CLIENTS: readonly VncClient[] = [
  tigervnc,
  remoteViewer,
  gvncviewer,
  vinagre,
  remmina,
  xtightvncviewer,
  ssvnc,
  vncsnapshot,
  gvnccapture,
  netVnc,
  novncDebian,
  novncNpm,
  vncRfbClient,
  rfb2,
];
