import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { once } from 'node:events';
import net, { type AddressInfo } from 'node:net';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BrowserViewers } from '../../src/viewers/browser/browser-viewers.js';
import { canvasImage, launchChromium, recordingBrowser, waitForPageState, waitForTerminalText } from './support/browser-page.js';
import { keepForInspection } from './support/expectations.js';
import { countLit, locateFramebuffer, showsFramebuffer } from './support/images.js';
import { kubevirtForVm } from './support/kubevirt-vm.js';
import { startOpenstackWithWebsockify } from './support/openstack.js';
import { pollFor } from './support/poll.js';
import { ProcessLab, runProgram } from './support/processes.js';
import { startQemuSerialVm, startQemuVm, type QemuVm } from './support/qemu.js';
import { BOOT_MENU, serveSerialOverTcp } from './support/serial.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, gatedTitle, requireTools } from './support/tools.js';
import { startProxy } from './support/vconsole.js';
import { startVconsole } from '../support/cli.js';
import { startWebsockify } from './support/websockify.js';

// The browser viewer as a user meets it: vconsole's page server hands a URL to "the browser"
// (VCONSOLE_BROWSER, here a program that records it), and headless Chromium opens that URL and
// shows the console behind a real `vconsole proxy`: the demo consoles, and QEMU's SeaBIOS
// screen and serial line reached through the KubeVirt fixture and through Nova + websockify.

const demoGate = requireTools(['chromium']);
const qemuGate = requireTools(['chromium', 'tesseract', 'qemu-system-x86_64', 'vncsnapshot', 'websockify', 'socat', 'ss']);

/** One BrowserViewers whose "browser" records URLs, and the Chromium that opens them. */
function browserViewerHarness(lab: ProcessLab) {
  const state: { chromium?: Browser; viewers?: BrowserViewers; urls?: () => string[] } = {};
  const pages: Page[] = [];
  beforeAll(async () => {
    const recorder = recordingBrowser(await lab.tempDir('browser'));
    state.urls = recorder.urls;
    state.viewers = new BrowserViewers({ env: { VCONSOLE_BROWSER: recorder.program } });
    state.chromium = await launchChromium();
  }, E2E_SETUP_TIMEOUT_MS);
  afterEach(async () => {
    for (const page of pages.splice(0)) await page.close().catch(() => undefined);
  });
  afterAll(async () => {
    await state.viewers?.stopAll();
    await state.chromium?.close();
  });
  return {
    get viewers(): BrowserViewers {
      return state.viewers!;
    },
    /** Launches the browser viewer for `key` and opens, in Chromium, the URL it handed the browser. */
    async launchAndOpen(
      key: number,
      target: Parameters<BrowserViewers['launch']>[1],
    ): Promise<{ page: Page; url: string; pageUrl: string }> {
      const before = state.urls!().length;
      await state.viewers!.launch(key, target);
      const url = await pollFor(() => state.urls!()[before], {
        what: 'the browser viewer to hand a URL to the browser',
        timeoutMs: 15_000,
      });
      // The browser's command line holds a one-time address, which the page's first load spends.
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/open\/[A-Za-z0-9_-]{22}$/);
      const page = await state.chromium!.newPage();
      pages.push(page);
      await page.setViewport({ width: 1024, height: 700 });
      await page.goto(url);
      return { page, url, pageUrl: page.url() };
    },
    /** A browser context of its own: no cookie of the other pages. */
    newIncognitoContext() {
      return state.chromium!.createBrowserContext();
    },
    async newPage(): Promise<Page> {
      const page = await state.chromium!.newPage();
      pages.push(page);
      return page;
    },
  };
}

describe.skipIf(demoGate.skip)(gatedTitle('browser viewer: the demo consoles in headless Chromium', demoGate), () => {
  const lab = new ProcessLab();
  const harness = browserViewerHarness(lab);
  afterAll(() => lab.cleanup(), 60_000);

  it(
    'shows the demo VNC console on a page titled with the VM name, scaled, with its toolbar',
    async () => {
      const proxy = await startProxy(lab, ['demo:vm-a']);
      const { page } = await harness.launchAndOpen(1, { host: '127.0.0.1', port: proxy.ports[0].port, title: 'vm-a', consoleType: 'vnc' });
      await waitForPageState(page, 'connected');
      expect(await page.title()).toBe('vm-a');
      const picture = await pollFor(
        async () => {
          const image = await canvasImage(page);
          return countLit(image) > 500 ? image : undefined;
        },
        { what: 'the demo desktop on the canvas', timeoutMs: 30_000 },
      );
      expect({ width: picture.width, height: picture.height }).toEqual({ width: 800, height: 600 });
      // Scaled to the window: the canvas is drawn smaller than the window's console area.
      const shown = await page.$eval('#console canvas', (canvas) => canvas.getBoundingClientRect().height);
      expect(shown).toBeLessThan(700);
      const buttons = await page.$$eval('#toolbar button', (all) => all.map((b) => b.textContent));
      expect(buttons).toEqual(['Ctrl+Alt+Del', 'Clipboard', 'Fullscreen']);
      await harness.viewers.stop(1);
      await proxy.interrupt();
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'asks for the VNC password when the console wants one, and connects with it',
    async () => {
      const passwordFile = `${await lab.tempDir('browser-pw')}/password`;
      writeFileSync(passwordFile, 'pa55word\n', { mode: 0o600 });
      const proxy = await startProxy(lab, ['demo:vm-p'], ['--password-file', passwordFile]);
      const { page } = await harness.launchAndOpen(6, { host: '127.0.0.1', port: proxy.ports[0].port, title: 'vm-p', consoleType: 'vnc' });
      await page.waitForSelector('#password.shown input[type=password]', { timeout: 60_000 });
      await page.type('#password input[type=password]', 'pa55word');
      await page.keyboard.press('Enter');
      await waitForPageState(page, 'connected');
      await pollFor(async () => (countLit(await canvasImage(page)) > 500 ? true : undefined), {
        what: 'the demo desktop after the password',
        timeoutMs: 30_000,
      });
      await harness.viewers.stop(6);
      await proxy.interrupt();
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    "reaches an exposed open's port (VeNCrypt to the network) over loopback: asked the generated password, shows the console",
    async () => {
      const configHome = await lab.tempDir('browser-exposed-config');
      const open = startVconsole(['open', 'demo:vm-x', '--viewer', 'none', '--no-tui', '--listen', '0.0.0.0'], {
        XDG_CONFIG_HOME: configHome,
      });
      try {
        const port = (await open.jsonLines(1))[0].port as number;
        await open.waitForStderr(/VNC password for viewers of this listener: (\S+) \(shown once/);
        const password = /VNC password for viewers of this listener: (\S+) \(shown once/.exec(open.stderr())![1];
        const { page } = await harness.launchAndOpen(8, { host: '127.0.0.1', port, title: 'vm-x', consoleType: 'vnc' });
        await page.waitForSelector('#password.shown input[type=password]', { timeout: 60_000 });
        await page.type('#password input[type=password]', password);
        await page.keyboard.press('Enter');
        await waitForPageState(page, 'connected');
        await pollFor(async () => (countLit(await canvasImage(page)) > 500 ? true : undefined), {
          what: 'the demo desktop after the password',
          timeoutMs: 30_000,
        });
        await harness.viewers.stop(8);
      } finally {
        await open.stop();
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    "shares clipboard text both ways and sends Ctrl+Alt+Del to the console's RFB server",
    async () => {
      // vconsole's own RFB server (the hub's), in process, to see what the page sends.
      const { Framebuffer } = await import('../../src/rfb/wire/framebuffer.js');
      const { serveClient } = await import('../../src/rfb/server/rfb-server.js');
      type Served = ReturnType<typeof serveClient>;
      const pasted: string[] = [];
      const keysDown: number[] = [];
      const served: Served[] = [];
      const rfbServer = net.createServer((socket) => {
        served.push(
          serveClient(socket, {
            framebuffer: new Framebuffer(320, 200, 'clip'),
            input: {
              key: (down, keysym) => (down ? keysDown.push(keysym) : undefined),
              pointer: () => undefined,
              clipboard: (text) => pasted.push(text),
            },
          }),
        );
      });
      rfbServer.listen(0, '127.0.0.1');
      await once(rfbServer, 'listening');
      try {
        const { page } = await harness.launchAndOpen(7, {
          host: '127.0.0.1',
          port: (rfbServer.address() as AddressInfo).port,
          title: 'clip',
          consoleType: 'vnc',
        });
        await waitForPageState(page, 'connected');
        await page.click('#toolbar button:nth-of-type(2)'); // Clipboard
        served[0].clipboard('copied in the VM');
        await page.waitForFunction(() => document.querySelector('textarea')?.value === 'copied in the VM', { timeout: 30_000 });
        await page.$eval('textarea', (area) => (area.value = ''));
        await page.type('#clipboard textarea', 'typed in the browser');
        await page.click('#clipboard button');
        await pollFor(() => (pasted.includes('typed in the browser') ? true : undefined), {
          what: 'the pasted text at the RFB server',
          timeoutMs: 30_000,
        });
        await page.click('#toolbar button:nth-of-type(1)'); // Ctrl+Alt+Del
        await pollFor(() => (keysDown.includes(0xffff) ? true : undefined), { what: 'Delete at the RFB server', timeoutMs: 30_000 });
        expect(keysDown.slice(-3)).toEqual([0xffe3, 0xffe9, 0xffff]);
        await harness.viewers.stop(7);
      } finally {
        rfbServer.close();
        for (const client of served) client.close();
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'types into the demo serial shell through xterm.js and shows its answer',
    async () => {
      const proxy = await startProxy(lab, ['demo:vm-b#serial']);
      const { page } = await harness.launchAndOpen(2, {
        host: '127.0.0.1',
        port: proxy.ports[0].port,
        title: 'vm-b',
        consoleType: 'serial',
      });
      await waitForPageState(page, 'connected');
      expect(await page.title()).toBe('vm-b');
      await page.keyboard.type('hostname');
      await page.keyboard.press('Enter');
      const text = await waitForTerminalText(page, /hostname\s+vm-b/);
      expect(text).toContain('vm-b');
      await harness.viewers.stop(2);
      await proxy.interrupt();
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'reconnects when the console drops and comes back, then says "session closed" on stop and stays closed',
    async () => {
      const first = await startProxy(lab, ['demo:vm-c']);
      const port = first.ports[0].port;
      const { page, url } = await harness.launchAndOpen(3, { host: '127.0.0.1', port, title: 'vm-c', consoleType: 'vnc' });
      await waitForPageState(page, 'connected');
      await first.process.stop();
      await waitForPageState(page, 'reconnecting');
      const second = await startProxy(lab, ['demo:vm-c'], ['--port', String(port)]);
      await waitForPageState(page, 'connected');

      await harness.viewers.stop(3);
      await waitForPageState(page, 'closed');
      expect(await page.$eval('#state', (label) => label.textContent)).toBe('session closed');
      expect(await page.$eval('#closed-banner', (banner) => getComputedStyle(banner).display)).toBe('flex');
      // The session is withdrawn: the page's own address now answers 403, in the tab that had it too.
      const again = await harness.newPage();
      expect((await again.goto(url))?.status()).toBe(403);
      expect((await page.reload())?.status()).toBe(403);
      await second.interrupt();
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'says "session closed" when stopped while its console is down and the page is between reconnects',
    async () => {
      const proxy = await startProxy(lab, ['demo:vm-e']);
      const { page } = await harness.launchAndOpen(5, { host: '127.0.0.1', port: proxy.ports[0].port, title: 'vm-e', consoleType: 'vnc' });
      await waitForPageState(page, 'connected');
      await proxy.process.stop();
      await waitForPageState(page, 'reconnecting');
      await harness.viewers.stop(5);
      await waitForPageState(page, 'closed');
      expect(await page.$eval('#state', (label) => label.textContent)).toBe('session closed');
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'keeps working in its tab (a reload too), is refused in a browser without the session, and closes when its one-time address is replayed',
    async () => {
      const proxy = await startProxy(lab, ['demo:vm-f']);
      const { page, url, pageUrl } = await harness.launchAndOpen(8, {
        host: '127.0.0.1',
        port: proxy.ports[0].port,
        title: 'vm-f',
        consoleType: 'vnc',
      });
      await waitForPageState(page, 'connected');
      expect((await page.reload())?.status()).toBe(200);
      await waitForPageState(page, 'connected');
      // A browser without the session's cookie (another profile, another user's) gets neither page nor websocket.
      const context = await harness.newIncognitoContext();
      const stranger = await context.newPage();
      expect((await stranger.goto(pageUrl))?.status()).toBe(403);
      const outcome = await stranger.evaluate(
        (address: string) =>
          new Promise<string>((resolve) => {
            const socket = new WebSocket(address);
            socket.onopen = () => resolve('open');
            socket.onclose = (event) => resolve(`closed ${event.code}`);
          }),
        `${pageUrl.replace(/^http/, 'ws')}ws`,
      );
      expect(outcome).toBe('closed 1006');
      // Whoever else read the URL from the browser's command line gets nothing, and the tab says why it closed.
      expect((await stranger.goto(url))?.status()).toBe(403);
      await waitForPageState(page, 'closed');
      expect(await page.$eval('#state', (label) => label.textContent)).toMatch(/one-time address was used twice/);
      await context.close();
      await proxy.interrupt();
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'refuses the websocket to a page of another origin and a page whose secret is wrong',
    async () => {
      const proxy = await startProxy(lab, ['demo:vm-d']);
      const { page, pageUrl } = await harness.launchAndOpen(4, {
        host: '127.0.0.1',
        port: proxy.ports[0].port,
        title: 'vm-d',
        consoleType: 'vnc',
      });
      await waitForPageState(page, 'connected');
      const wsUrl = `${pageUrl.replace(/^http/, 'ws')}ws`;

      // Another site open in the same browser, on another local port, that learnt the URL.
      const foreign = http.createServer((_req, res) => res.end('<!doctype html><title>elsewhere</title>'));
      foreign.listen(0, '127.0.0.1');
      await once(foreign, 'listening');
      try {
        const other = await harness.newPage();
        await other.goto(`http://127.0.0.1:${(foreign.address() as AddressInfo).port}/`);
        const outcome = await other.evaluate(
          (address: string) =>
            new Promise<string>((resolve) => {
              const socket = new WebSocket(address);
              socket.onopen = () => resolve('open');
              socket.onclose = (event) => resolve(`closed ${event.code}`);
            }),
          wsUrl,
        );
        expect(outcome).toBe('closed 1006');
      } finally {
        foreign.close();
      }
      const wrong = await harness.newPage();
      const wrongUrl = pageUrl.replace(/\/s\/[^/]+\//, `/s/${'x'.repeat(22)}/`);
      expect((await wrong.goto(wrongUrl))?.status()).toBe(403);
      await harness.viewers.stop(4);
      await proxy.interrupt();
    },
    E2E_TEST_TIMEOUT_MS,
  );
});

describe.skipIf(qemuGate.skip)(gatedTitle("browser viewer: QEMU's SeaBIOS in headless Chromium through real proxies", qemuGate), () => {
  const lab = new ProcessLab();
  const harness = browserViewerHarness(lab);
  let dir: string;
  let vm: QemuVm;

  beforeAll(async () => {
    dir = await lab.tempDir('browser-qemu');
    vm = await startQemuVm(lab, 'vm-a', dir);
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(() => lab.cleanup(), 60_000);

  /** The page's canvas holds QEMU's own BIOS screen, pixel for pixel (QEMU's framebuffer as the reference). */
  async function expectBiosOnCanvas(page: Page, label: string): Promise<void> {
    let last: ReturnType<typeof locateFramebuffer>;
    try {
      await pollFor(
        async () => {
          const image = await canvasImage(page);
          if (image.width !== vm.reference.width || image.height !== vm.reference.height) return undefined;
          last = locateFramebuffer(image, vm.reference.image, { x: 0, y: 0, width: image.width, height: image.height });
          return showsFramebuffer(last) ? true : undefined;
        },
        { what: `${vm.name}'s BIOS screen on the page's canvas`, timeoutMs: 60_000, intervalMs: 500 },
      );
    } catch (err) {
      const file = `${dir}/${label}.png`;
      await page.screenshot({ path: file }).catch(() => undefined);
      throw new Error(
        `${(err as Error).message}; best match ${JSON.stringify(last)}; screenshot kept at ${await keepForInspection(file, label)}`,
        { cause: err },
      );
    }
  }

  it(
    'KubeVirt fixture: the page shows the VM BIOS screen through `vconsole proxy vm-a`',
    async () => {
      const cluster = await kubevirtForVm(vm.socketPath);
      try {
        const proxy = await startProxy(lab, ['vm-a'], ['--kubeconfig', cluster.kubeconfig]);
        const { page } = await harness.launchAndOpen(10, {
          host: '127.0.0.1',
          port: proxy.ports[0].port,
          title: 'default/vm-a',
          consoleType: 'vnc',
        });
        await waitForPageState(page, 'connected');
        expect(await page.title()).toBe('default/vm-a');
        await expectBiosOnCanvas(page, 'kubevirt');
        // And what the window shows, read back as a user would: SeaBIOS's own words.
        const screenshot = `${dir}/kubevirt-window.png` as const;
        await page.screenshot({ path: screenshot });
        const read = await runProgram('tesseract', [screenshot, 'stdout'], { timeoutMs: 60_000 });
        expect(read.stdout, `tesseract read: ${read.stdout}`).toMatch(/SeaBIOS/);
        await harness.viewers.stop(10);
        await waitForPageState(page, 'closed');
        await proxy.interrupt();
      } finally {
        await cluster.fixture.close();
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'OpenStack (fake Nova + real websockify): the page shows the VM BIOS screen through `vconsole proxy os:web-1`',
    async () => {
      const websockify = await startWebsockify(lab, dir, {});
      const cloud = await startOpenstackWithWebsockify(dir, websockify, vm.tcpPort, 'vnc_lite');
      try {
        const proxy = await startProxy(lab, ['os:web-1'], cloud.args, cloud.env);
        const { page } = await harness.launchAndOpen(11, {
          host: '127.0.0.1',
          port: proxy.ports[0].port,
          title: 'web-1',
          consoleType: 'vnc',
        });
        await waitForPageState(page, 'connected');
        await expectBiosOnCanvas(page, 'openstack');
        await harness.viewers.stop(11);
        await proxy.interrupt();
      } finally {
        await cloud.close();
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    "serial: ESC typed in the page's terminal reaches SeaBIOS on a QEMU serial line and its boot menu shows",
    async () => {
      const serialVm = await startQemuSerialVm(lab, 'vm-serial', dir);
      const bridge = await serveSerialOverTcp(lab, serialVm.serialPath);
      const proxy = await startProxy(lab, [`tcp://127.0.0.1:${bridge.port}#serial`]);
      const { page } = await harness.launchAndOpen(12, {
        host: '127.0.0.1',
        port: proxy.ports[0].port,
        title: 'vm-serial',
        consoleType: 'serial',
      });
      await waitForPageState(page, 'connected');
      // What SeaBIOS printed before the page connected is gone: ESC again until its menu comes.
      await waitForTerminalText(page, BOOT_MENU, () => page.keyboard.press('Escape'));
      await harness.viewers.stop(12);
      await proxy.interrupt();
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
