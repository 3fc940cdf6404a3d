import net from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deflateSync, inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RfbClient } from '../support/rfb-client.js';
import { keepForInspection } from './support/expectations.js';
import type { RgbImage } from './support/images.js';
import { awaitSocketFile, freeLoopbackPort } from './support/net.js';
import { pollFor } from './support/poll.js';
import { ProcessLab, runProgram, type RunningProcess } from './support/processes.js';
import { Qmp } from './support/qmp.js';
import { qemuPcArgs } from './support/qemu.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, gatedTitle, requireTools } from './support/tools.js';
import { startProxy, type RunningProxy } from './support/vconsole.js';
import { awaitWindow, grabScreen, moveWindow, startXvfb, type XServer, type XWindow } from './support/xvfb.js';

// The RFB extensions through the hub (`proxy --share`), against real QEMU and real viewers:
// a resolution change followed by the tests' client, gvncviewer (through the hub and, as the
// control, on QEMU's own server), TigerVNC with ContinuousUpdates and Fence, SetDesktopSize
// answered by QEMU (virtio-vga forwards it, std VGA refuses it) and by the demo, and
// ExtendedClipboard text both ways between a hub client and a client of QEMU's own server.
const gate = requireTools(['qemu-system-x86_64', 'Xvfb', 'xwininfo', 'xdotool', 'import', 'gvncviewer', 'vncviewer']);

const EXTENDED_SIZE = -308;
const DESKTOP_SIZE = -223;
const EXTENDED_CLIPBOARD = 0xc0a1e5ce | 0;
const CB_TEXT = 1;
const CB_CAPS = 1 << 24;
const CB_REQUEST = 1 << 25;
const CB_NOTIFY = 1 << 27;
const CB_PROVIDE = 1 << 28;

/**
 * A 512-byte boot sector, written here: it fills a 320x200 256-colour screen (mode 13h) white,
 * waits for a key, fills an 80x25 text screen (mode 3) with white X's on blue, waits for a key,
 * and starts over. Each key is a resolution change on QEMU's VGA: 640x400 and 720x400.
 */
function modeSwitchingBootSector(): Buffer {
  const code = Buffer.from(
    [
      'FC', // cld
      'B8 13 00 CD 10', // mode 13h
      'B8 00 A0 8E C0 31 FF B9 00 FA B0 0F F3 AA', // es=A000, 64000 white pixels
      '30 E4 CD 16', // wait for a key
      'B8 03 00 CD 10', // mode 3
      'B8 00 B8 8E C0 31 FF B9 D0 07 B8 58 1F F3 AB', // es=B800, 2000 x 'X' white on blue
      '30 E4 CD 16', // wait for a key
      'EB CF', // back to the start
    ]
      .join(' ')
      .replace(/ /g, ''),
    'hex',
  );
  const sector = Buffer.alloc(512);
  code.copy(sector);
  sector.writeUInt16LE(0xaa55, 510);
  return sector;
}

const GRAPHICS = { width: 640, height: 400 };
const TEXT = { width: 720, height: 400 };

interface Vm {
  process: RunningProcess;
  /** QEMU's own VNC server on 127.0.0.1:5900+N, for gvncviewer (which asks it for exclusive access). */
  tcpDisplay: number;
  hubSocket: string;
  directSocket: string;
  qmp: Qmp;
}

function unixClient(path: string, encodings: number[], shared = true): Promise<RfbClient> {
  return RfbClient.connect(net.connect(path), { encodings: [0, ...encodings], timeoutMs: 15_000, shared });
}

function tcpClient(port: number, encodings: number[]): Promise<RfbClient> {
  return RfbClient.connect(net.connect(port, '127.0.0.1'), { encodings: [0, ...encodings], timeoutMs: 15_000 });
}

/**
 * Reads messages, asking for updates as they come, until `done` holds; fails after `rounds`
 * messages without it (each read has the client's own deadline), so a stream that never gets
 * there fails the test instead of holding it.
 */
async function readUntil(client: RfbClient, done: () => boolean, what: string, rounds = 500): Promise<void> {
  for (let read = 0; !done(); read++) {
    if (read === rounds) throw new Error(`${what}: not there after ${rounds} messages`);
    const rects = await client.readMessage();
    if (rects) client.requestUpdate(true);
  }
}

/** The part of `window`'s area that is blue like the text screen's background. */
function blueShare(image: RgbImage, window: XWindow): number {
  let blue = 0;
  let all = 0;
  for (let y = window.y + 40; y < Math.min(image.height, window.y + window.height); y += 4)
    for (let x = window.x; x < Math.min(image.width, window.x + window.width); x += 4) {
      const at = (y * image.width + x) * 3;
      all += 1;
      if (image.pixels[at + 2] > 120 && image.pixels[at] < 80) blue += 1;
    }
  return all ? blue / all : 0;
}

describe.skipIf(gate.skip)(gatedTitle('the RFB extensions through the hub, against QEMU, gvncviewer and TigerVNC', gate), () => {
  const lab = new ProcessLab();
  let dir: string;
  let x: XServer;
  let modes: Vm;
  let virtio: Vm;
  let proxy: RunningProxy;
  /** The hub's ports: the mode-switching VM, the virtio-vga VM, the demo. */
  let ports: { modes: number; virtio: number; demo: number };

  const startVm = async (name: string, args: string[]): Promise<Vm> => {
    const hubSocket = join(dir, `${name}.hub.sock`);
    const directSocket = join(dir, `${name}.direct.sock`);
    const qmpSocket = join(dir, `${name}.qmp.sock`);
    const tcpDisplay = (await freeLoopbackPort()) - 5900;
    const qemu = lab.start(`qemu ${name}`, 'qemu-system-x86_64', [
      ...qemuPcArgs(name).filter((arg, i, all) => arg !== '-vga' && all[i - 1] !== '-vga'),
      ...args,
      '-vnc',
      `unix:${hubSocket}`,
      '-vnc',
      `unix:${directSocket},id=direct`,
      '-vnc',
      `127.0.0.1:${tcpDisplay},id=control`,
      '-qmp',
      `unix:${qmpSocket},server=on,wait=off`,
    ]);
    await awaitSocketFile(directSocket, `QEMU ${name}'s VNC socket`, 60_000, () => qemu.describe());
    return { process: qemu, tcpDisplay, hubSocket, directSocket, qmp: await Qmp.connect(qmpSocket) };
  };

  /** QEMU's screen size now, from its own screendump. */
  const screenSize = async (vm: Vm) => {
    const image = await vm.qmp.screendump(dir);
    return { width: image.width, height: image.height };
  };

  beforeAll(async () => {
    dir = await lab.tempDir('hub-extensions');
    const disk = join(dir, 'modes.img');
    await writeFile(disk, modeSwitchingBootSector());
    [x, modes, virtio] = await Promise.all([
      startXvfb(lab),
      startVm('vm-modes', ['-vga', 'std', '-drive', `file=${disk},format=raw,if=ide`]),
      startVm('vm-virtio', ['-vga', 'none', '-device', 'virtio-vga']),
    ]);
    // The boot sector has drawn its first screen once QEMU shows 640x400.
    await pollFor(async () => ((await screenSize(modes)).width === GRAPHICS.width ? true : undefined), {
      what: 'the boot sector to switch to 640x400',
      timeoutMs: 90_000,
      intervalMs: 250,
    });
    proxy = await startProxy(lab, [`unix://${modes.hubSocket}`, `unix://${virtio.hubSocket}`, 'demo:vm-d'], ['--share']);
    // The port lines come as each session listens, in any order.
    const portOf = (target: string) => proxy.ports.find((line) => line.target === target)?.port ?? -1;
    ports = { modes: portOf(`unix://${modes.hubSocket}`), virtio: portOf(`unix://${virtio.hubSocket}`), demo: portOf('demo:vm-d') };
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    modes?.qmp.close();
    virtio?.qmp.close();
    await lab.cleanup();
  }, 60_000);

  /** Presses a key in the mode-switching VM (QMP) and waits until QEMU shows `size`. */
  const switchMode = async (size: { width: number; height: number }) => {
    await modes.qmp.execute('send-key', { keys: [{ type: 'qcode', data: 'spc' }] });
    await pollFor(async () => ((await screenSize(modes)).width === size.width ? true : undefined), {
      what: `QEMU to show ${size.width}x${size.height}`,
      timeoutMs: 30_000,
      intervalMs: 100,
    });
  };
  const otherMode = async () => ((await screenSize(modes)).width === GRAPHICS.width ? TEXT : GRAPHICS);

  it(
    'a resolution change reaches hub clients that asked for ExtendedDesktopSize or DesktopSize, and gvncviewer as on QEMU itself',
    async () => {
      const extended = await tcpClient(ports.modes, [EXTENDED_SIZE]);
      const plain = await tcpClient(ports.modes, [DESKTOP_SIZE]);
      // gvncviewer asks QEMU for exclusive access (shared flag 0): on QEMU's own server it gets
      // a display of its own (the `direct` one), else it would push the hub off.
      // gvncviewer takes HOST:DISPLAY (port 5900 + DISPLAY) only.
      const viaHub = lab.start('gvncviewer (hub)', 'gvncviewer', [`127.0.0.1:${ports.modes - 5900}`], { env: x.env });
      const windowOf = (viewer: RunningProcess, other?: XWindow) =>
        awaitWindow(
          x,
          `${viewer.name}'s window`,
          (w) => w.className === 'Gvncviewer' && w.title.includes('GVncViewer') && w.id !== other?.id,
          { width: 300, height: 200 },
          () => viewer.describe(),
        );
      const hubWindow = await windowOf(viaHub);
      const direct = lab.start('gvncviewer (QEMU)', 'gvncviewer', [`127.0.0.1:${modes.tcpDisplay}`], { env: x.env });
      try {
        const directWindow = await moveWindow(x, await windowOf(direct, hubWindow), 1000, 0);

        for (const size of [await otherMode(), await otherMode().then((s) => (s === TEXT ? GRAPHICS : TEXT))]) {
          await switchMode(size);
          for (const client of [extended, plain]) {
            client.requestUpdate(true);
            await readUntil(
              client,
              () => client.width === size.width && client.height === size.height,
              `the size ${size.width}x${size.height}`,
            );
          }
          // Both windows show the new screen: blue text or the white graphics page, whatever their size.
          const wantBlue = size === TEXT;
          let shot = { file: '', shares: [0, 0] };
          await pollFor(
            async () => {
              const { file, image } = await grabScreen(x, dir, 'gvncviewer');
              shot = { file, shares: [blueShare(image, hubWindow), blueShare(image, directWindow)] };
              return shot.shares.every((share) => (wantBlue ? share > 0.5 : share < 0.05)) ? true : undefined;
            },
            {
              what: `both gvncviewer windows to show the ${size.width}x${size.height} screen`,
              timeoutMs: 60_000,
              intervalMs: 500,
              detail: async () =>
                `blue share (hub, QEMU): ${shot.shares.join(', ')}; screenshot ${await keepForInspection(shot.file, 'hub-extensions')}\n${viaHub.describe()}`,
            },
          );
        }
        expect(extended.extendedSizes.filter((s) => s.reason === 0).length).toBeGreaterThanOrEqual(3);
        expect(viaHub.hasExited(), viaHub.describe()).toBe(false);
      } finally {
        extended.close();
        plain.close();
        await viaHub.stop();
        await direct.stop();
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'SetDesktopSize is forwarded and answered as QEMU answers it (virtio-vga: forwarded, std VGA: refused), and the demo refuses it',
    async () => {
      const answer = async (client: RfbClient) => {
        client.requestUpdate(false);
        await readUntil(client, () => client.extendedSizes.length > 0, 'an ExtendedDesktopSize rectangle');
        client.setDesktopSize(1024, 768);
        await readUntil(client, () => client.extendedSizes.some((s) => s.reason === 1), 'the answer to our own resize (reason 1)');
        client.close();
        return client.extendedSizes.find((s) => s.reason === 1)?.status;
      };
      const viaHub = {
        virtio: await answer(await tcpClient(ports.virtio, [EXTENDED_SIZE])),
        std: await answer(await tcpClient(ports.modes, [EXTENDED_SIZE])),
        demo: await answer(await tcpClient(ports.demo, [EXTENDED_SIZE])),
      };
      const onQemu = {
        virtio: await answer(await unixClient(virtio.directSocket, [EXTENDED_SIZE])),
        std: await answer(await unixClient(modes.directSocket, [EXTENDED_SIZE])),
      };
      // QEMU's 4 is its own: "passed to the guest" (no guest driver acts on it here); 3 is "invalid screen layout".
      expect(onQemu).toEqual({ virtio: 4, std: 3 });
      expect(viaHub).toEqual({ ...onQemu, demo: 1 });
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'TigerVNC turns on ContinuousUpdates (with Fence) through the hub, and its picture follows a key typed in it',
    async () => {
      const tigervnc = lab.start('vncviewer', 'vncviewer', ['-Log', '*:stderr:100', `127.0.0.1::${ports.modes}`], { env: x.env });
      try {
        await pollFor(() => (/Enabling continuous updates/.test(tigervnc.stderr()) ? true : undefined), {
          what: 'TigerVNC to enable continuous updates',
          timeoutMs: 60_000,
          detail: () => tigervnc.describe(),
        });
        const window = await awaitWindow(x, "TigerVNC's window", (w) => w.className === 'TigerVNC Viewer', { width: 300, height: 200 });
        const next = await otherMode();
        const typed = await runProgram('xdotool', ['windowfocus', '--sync', window.id, 'key', 'space'], { env: x.env, timeoutMs: 15_000 });
        expect(typed.code, typed.stderr).toBe(0);
        await pollFor(async () => ((await screenSize(modes)).width === next.width ? true : undefined), {
          what: 'the key typed in TigerVNC to switch the VM',
          timeoutMs: 30_000,
          intervalMs: 100,
        });
        let share = 0;
        await pollFor(
          async () => {
            const { image } = await grabScreen(x, dir, 'tigervnc');
            const shown = (await awaitWindow(x, "TigerVNC's window", (w) => w.id === window.id, { width: 1, height: 1 })) ?? window;
            share = blueShare(image, { ...shown, y: shown.y - 40 });
            return (next === TEXT ? share > 0.5 : share < 0.05) ? true : undefined;
          },
          {
            what: `TigerVNC to show the ${next.width}x${next.height} screen`,
            timeoutMs: 60_000,
            intervalMs: 500,
            detail: () => `blue share ${share}`,
          },
        );
        expect(tigervnc.stderr()).not.toMatch(/fence|continuous updates.*(fail|error)/i);
      } finally {
        await tigervnc.stop();
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    "carries ExtendedClipboard text both ways between a hub client and a client of QEMU's own server (QEMU's clipboard in between)",
    async () => {
      const caps = Buffer.alloc(8);
      caps.writeUInt32BE((CB_CAPS | CB_REQUEST | CB_NOTIFY | CB_PROVIDE | CB_TEXT) >>> 0);
      caps.writeUInt32BE(1 << 20, 4);
      const flags = (value: number) => {
        const out = Buffer.alloc(4);
        out.writeUInt32BE(value >>> 0);
        return out;
      };
      const provide = (text: string) => {
        const bytes = Buffer.from(`${text}\0`, 'utf8');
        const size = Buffer.alloc(4);
        size.writeUInt32BE(bytes.length);
        return Buffer.concat([flags(CB_PROVIDE | CB_TEXT), deflateSync(Buffer.concat([size, bytes]))]);
      };
      const providedText = (payload: Buffer) => {
        const data = inflateSync(payload.subarray(4));
        return data.toString('utf8', 4, 4 + data.readUInt32BE(0)).replace(/\0$/, '');
      };
      /**
       * A clipboard peer reading its connection in the background: it answers caps with its own,
       * fetches what is notified, provides what it holds when asked, and keeps what it is given.
       */
      const peer = (client: RfbClient, holding: { text?: string }) => {
        const state = { received: [] as string[], caps: false };
        let handled = 0;
        void (async () => {
          for (;;) {
            try {
              if (await client.readMessage(120_000)) client.requestUpdate(true);
            } catch {
              return; // closed at the end of the test
            }
            for (const payload of client.extendedCutTexts.slice(handled)) {
              handled += 1;
              const word = payload.readUInt32BE(0);
              const action = word & 0x1f000000;
              if (action & CB_CAPS) {
                client.sendExtendedCutText(caps);
                state.caps = true;
              } else if (action === CB_NOTIFY && word & CB_TEXT) client.sendExtendedCutText(flags(CB_REQUEST | CB_TEXT));
              else if (action === CB_REQUEST && holding.text !== undefined) client.sendExtendedCutText(provide(holding.text));
              else if (action === CB_PROVIDE) state.received.push(providedText(payload));
            }
          }
        })();
        return state;
      };
      const hubSide: { text?: string } = {};
      const qemuSide: { text?: string } = {};
      const onHub = await tcpClient(ports.modes, [EXTENDED_CLIPBOARD]);
      const onQemu = await unixClient(modes.directSocket, [EXTENDED_CLIPBOARD]);
      onHub.requestUpdate(false);
      onQemu.requestUpdate(false);
      try {
        const hubPeer = peer(onHub, hubSide);
        const qemuPeer = peer(onQemu, qemuSide);
        await pollFor(() => (hubPeer.caps && qemuPeer.caps ? true : undefined), { what: 'both clients to get the clipboard caps' });
        // Viewer on the hub -> the hub -> QEMU's clipboard -> a viewer on QEMU's own server.
        hubSide.text = 'vom Hub: grüße ✓';
        onHub.sendExtendedCutText(flags(CB_NOTIFY | CB_TEXT));
        await pollFor(() => (qemuPeer.received.length > 0 ? true : undefined), { what: "the hub client's text to reach QEMU's client" });
        expect(qemuPeer.received).toEqual(['vom Hub: grüße ✓']);
        // And back.
        qemuSide.text = 'από το QEMU';
        onQemu.sendExtendedCutText(flags(CB_NOTIFY | CB_TEXT));
        await pollFor(() => (hubPeer.received.length > 0 ? true : undefined), { what: "QEMU's client's text to reach the hub client" });
        expect(hubPeer.received).toEqual(['από το QEMU']);
      } finally {
        onHub.close();
        onQemu.close();
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
