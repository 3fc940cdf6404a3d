import { appendFile } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildViewerCommand } from '../../src/viewers/command.js';
import { keepForInspection } from './support/expectations.js';
import { startOpenstackWithWebsockify } from './support/openstack.js';
import { readText, vmScreenText } from './support/ocr.js';
import { pollFor } from './support/poll.js';
import { ProcessLab, runProgram, type RunningProcess } from './support/processes.js';
import { startQemuSpiceVm, type QemuSpiceVm } from './support/spice.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, findExecutable, gatedTitle, requireTools } from './support/tools.js';
import { startPortCommand, type RunningProxy } from './support/vconsole.js';
import { startWebsockify, tokenFileText, type Websockify } from './support/websockify.js';
import { awaitWindow, grabScreen, startXvfb, type XServer, type XWindow } from './support/xvfb.js';

// SPICE end to end: QEMU's SPICE server behind real websockify (the core of
// nova-spicehtml5proxy), vconsole proxy in front, remote-viewer under Xvfb on vconsole's port.
// remote-viewer speaks first and opens several connections at once (main, display, inputs,
// cursor), each its own websocket: the window must show SeaBIOS's text, read by tesseract, and
// ESC typed into it must open SeaBIOS's boot menu, read from QEMU's own screendump.
const gate = requireTools([
  'qemu-system-x86_64',
  'websockify',
  'remote-viewer',
  'Xvfb',
  'xwininfo',
  'xdotool',
  'import',
  'convert',
  'tesseract',
  'ss',
  'pgrep',
]);

const BIOS_PROMPT = /Press ESC for boot menu/;
const BOOT_MENU = /Select boot device/;

describe.skipIf(gate.skip)(gatedTitle('SPICE consoles through vconsole proxy into remote-viewer', gate), () => {
  const lab = new ProcessLab();
  let dir: string;
  let x: XServer;
  let websockify: Websockify;
  let running: QemuSpiceVm | undefined;
  let vmCount = 0;

  beforeAll(async () => {
    dir = await lab.tempDir('spice');
    [x, websockify] = await Promise.all([startXvfb(lab), startWebsockify(lab, dir, {})]);
  }, E2E_SETUP_TIMEOUT_MS);
  afterEach(async () => {
    running?.qmp.close();
    await running?.process.stop();
    running = undefined;
  });
  afterAll(() => lab.cleanup(), 60_000);

  /**
   * A fresh VM per test: SeaBIOS shows its prompt for 65 s after QEMU starts. (After a QMP
   * system_reset a SPICE client that connects during the prompt sees a black screen: the VM
   * is started anew instead.)
   */
  async function freshVm(): Promise<QemuSpiceVm> {
    running = await startQemuSpiceVm(lab, `spice-${++vmCount}`, dir);
    return running;
  }

  /** remote-viewer started the way vconsole builds its command line for a SPICE console. */
  function remoteViewer(port: number, title: string): RunningProcess {
    const viewer = { id: 'remote-viewer' as const, name: 'remote-viewer', path: findExecutable('remote-viewer')! };
    const command = buildViewerCommand(viewer, { host: '127.0.0.1', port, title, consoleType: 'spice' });
    expect(command.args.at(-1)).toBe(`spice://127.0.0.1:${port}`);
    return lab.start(`remote-viewer ${title}`, command.command, command.args, { env: x.env });
  }

  /** Waits until the window's own pixels, read by tesseract, hold SeaBIOS's banner and prompt. */
  async function awaitBiosText(window: XWindow, detail: () => string): Promise<string> {
    let last = { file: '', text: '' };
    try {
      return await pollFor(
        async () => {
          const shot = await grabScreen(x, dir, 'spice');
          last = { file: shot.file, text: await readText(shot.file, window) };
          return /SeaBIOS/.test(last.text) && BIOS_PROMPT.test(last.text) ? last.text : undefined;
        },
        { what: "SeaBIOS's text in the remote-viewer window", timeoutMs: 90_000, intervalMs: 1_000, detail },
      );
    } catch (err) {
      const kept = last.file ? await keepForInspection(last.file, 'spice-remote-viewer') : 'none taken';
      throw new Error(`${(err as Error).message}\nlast OCR: ${JSON.stringify(last.text)}\nscreenshot: ${kept}`, { cause: err });
    }
  }

  /**
   * Types ESC into the window until the VM's own screen shows the boot menu: keys went through
   * remote-viewer, vconsole and websockify. Should the prompt have timed out on a slow machine,
   * the VM is reset first (input still works after a reset; only the first picture does not).
   */
  async function typeEscIntoVm(vm: QemuSpiceVm, window: XWindow, detail: () => string): Promise<void> {
    if (!BIOS_PROMPT.test(await vmScreenText(vm.qmp, dir, 'prompt'))) {
      await vm.qmp.execute('system_reset');
      await pollFor(async () => (BIOS_PROMPT.test(await vmScreenText(vm.qmp, dir, 'prompt')) ? true : undefined), {
        what: "SeaBIOS's prompt after a reset",
        timeoutMs: 30_000,
        intervalMs: 500,
      });
    }
    const xdotool = (...args: string[]) => runProgram('xdotool', args, { env: x.env, timeoutMs: 15_000 });
    await pollFor(
      async () => {
        // No window manager: focus by hand, click into the display, then the key.
        await xdotool('windowfocus', window.id);
        await xdotool('mousemove', '--window', window.id, String(Math.floor(window.width / 2)), String(Math.floor(window.height / 2)));
        await xdotool('click', '1');
        await xdotool('key', 'Escape');
        return BOOT_MENU.test(await vmScreenText(vm.qmp, dir, 'menu')) ? true : undefined;
      },
      { what: "SeaBIOS's boot menu after ESC typed into remote-viewer", timeoutMs: 50_000, intervalMs: 1_000, detail },
    );
  }

  /** The remote-viewer window titled `title`, big enough to hold the 720x400 BIOS screen. */
  function viewerWindow(title: string, detail: () => string): Promise<XWindow> {
    return awaitWindow(
      x,
      `remote-viewer window "${title}"`,
      (w) => w.className === 'Remote-viewer' && w.title.includes(title),
      { width: 720, height: 400 },
      detail,
    );
  }

  /** The client connections vconsole accepted, from its log lines. */
  const clientsOf = (proxy: RunningProxy) => (proxy.process.stderr().match(/client \d+ connected/g) ?? []).length;

  it(
    'ws:// --type spice: remote-viewer shows the BIOS text and its keys reach the VM',
    async () => {
      const vm = await freshVm();
      const token = `spice-token-${vmCount}`;
      await appendFile(websockify.tokenFile, tokenFileText({ [token]: `127.0.0.1:${vm.spicePort}` }));
      const proxy = await startPortCommand(lab, 'proxy', [websockify.url(token)], ['--type', 'spice']);
      const viewer = remoteViewer(proxy.ports[0].port, 'spice-ws');
      const detail = () => `${proxy.process.describe()}\n${viewer.describe()}`;
      try {
        const window = await viewerWindow('spice-ws', detail);
        await awaitBiosText(window, detail);
        await typeEscIntoVm(vm, window, detail);
        // One SPICE session, several channels, each its own connection and websocket.
        expect(clientsOf(proxy)).toBeGreaterThanOrEqual(3);
        expect(proxy.process.stderr()).not.toMatch(/replaces the console session|token rejected/);
        expect(proxy.process.stdout() + proxy.process.stderr()).not.toContain(token);
      } finally {
        await viewer.stop();
        await proxy.interrupt();
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'openstack: --type spice (spice-html5 from Nova, websockify as nova-spicehtml5proxy): the same, with one console URL for the whole channel burst',
    async () => {
      const vm = await freshVm();
      const cloud = await startOpenstackWithWebsockify(dir, websockify, undefined, 'vnc_auto', undefined, vm.spicePort);
      const proxy = await startPortCommand(lab, 'proxy', ['openstack:web-1'], ['--type', 'spice', ...cloud.args], cloud.env);
      const viewer = remoteViewer(proxy.ports[0].port, 'spice-nova');
      const detail = () => `${proxy.process.describe()}\n${viewer.describe()}`;
      try {
        const window = await viewerWindow('spice-nova', detail);
        await awaitBiosText(window, detail);
        await typeEscIntoVm(vm, window, detail);
        expect(clientsOf(proxy)).toBeGreaterThanOrEqual(3);
        // One console URL served every channel of remote-viewer's burst: the pre-flight's, or,
        // when the viewer came more than a few seconds later (its token may be gone), one fresh one.
        expect(cloud.fixture.count('nova', '/remote-consoles', 200)).toBeLessThanOrEqual(2);
        const output = proxy.process.stdout() + proxy.process.stderr();
        for (const secret of cloud.secrets()) expect(output).not.toContain(secret);
      } finally {
        await viewer.stop();
        await proxy.interrupt();
        await cloud.close();
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
