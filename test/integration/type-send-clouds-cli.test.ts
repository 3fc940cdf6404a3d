// `vconsole type` and `send` on serial consoles of the cloud fixtures: the bytes arrive at the
// guest's serial line through the console path a viewer uses (KubeVirt's console subresource,
// Proxmox VE's termproxy websocket, nova-serialproxy's websocket), and on their screens as key events
// (KubeVirt's vnc subresource, Proxmox VE's vncwebsocket, nova-novncproxy). Key names and layouts: type-send-keys-cli.test.ts.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Duplex } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubevirtFixture, type KubevirtFixture } from '../fixtures/kubevirt-api.js';
import { fixtureOpenrc, startOpenStackFixture, type OpenStackFixture } from '../fixtures/openstack-api.js';
import { startPveFixture, type PveFixture } from '../fixtures/pve-api.js';
import { runVconsole } from '../support/cli.js';
import { serveHandshake, serveVncAuthHandshake, startScriptedServer, update, type RfbPeer } from '../support/fake-rfb-server.js';
import { waitFor } from '../support/wait.js';

const TOKEN_ID = 'vconsole@pve!type';
const TOKEN_SECRET = '7a2e4c1b-3d5f-4e6a-9b8c-1f2e3d4c5b6a';
let dir: string;
let kubevirt: KubevirtFixture;
let pve: PveFixture;
let openstack: OpenStackFixture;
let pveArgs: string[];
let serialServer: net.Server;
let vncServer: net.Server;
let screen: Awaited<ReturnType<typeof startScriptedServer>>;
let openstackScreen: Awaited<ReturnType<typeof startScriptedServer>>;
let pveScreen: Awaited<ReturnType<typeof startScriptedServer>>;
/** The key events each guest's screen got: `+`/`-` and the keysym. */
const keys = { kubevirt: [] as string[], pve: [] as string[], openstack: [] as string[] };
/** The VNC password Proxmox VE's vncproxy set on the guest's screen (QEMU's `password=on`). */
let pveVncPassword = '';
/** What each guest's serial line received. */
const received = { kubevirt: '', pve: '', openstack: '' };

/** A serial line that says a prompt and keeps what it is sent. */
function recordingLine(onBytes: (text: string) => void): Duplex {
  const fromGuest = new PassThrough();
  fromGuest.write('login: ');
  return Duplex.from({
    readable: fromGuest,
    writable: new PassThrough().on('data', (chunk: Buffer) => onBytes(chunk.toString('latin1'))),
  });
}

/** Reads client messages until the client hangs up, noting every key event (keysyms: no QEMU extension offered). */
async function readKeys(peer: RfbPeer, into: string[]): Promise<void> {
  for (;;) {
    const type = (await peer.read(1))[0];
    if (type === 3) await peer.read(9);
    else if (type === 4) {
      const body = await peer.read(7);
      into.push(`${body[0] ? '+' : '-'}${body.readUInt32BE(3).toString(16)}`);
    } else throw new Error(`unexpected client message ${type}`);
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vconsole-type-clouds-'));
  // The VMI's screen, as QEMU's VNC socket: one picture, then whatever keys come.
  screen = await startScriptedServer(async (peer) => {
    await serveHandshake(peer, 8, 8);
    peer.write(update([{ rect: { x: 0, y: 0, w: 8, h: 8 }, encoding: 0, body: Buffer.alloc(8 * 8 * 4, 0x40) }]));
    await readKeys(peer, keys.kubevirt).catch(() => undefined);
  });
  openstackScreen = await startScriptedServer(async (peer) => {
    await serveHandshake(peer, 8, 8);
    peer.write(update([{ rect: { x: 0, y: 0, w: 8, h: 8 }, encoding: 0, body: Buffer.alloc(8 * 8 * 4, 0x40) }]));
    await readKeys(peer, keys.openstack).catch(() => undefined);
  });
  // Proxmox VE's guest screen asks for the VNC password vncproxy set (VNC authentication).
  pveScreen = await startScriptedServer(async (peer) => {
    await serveVncAuthHandshake(peer, 8, 8, pveVncPassword);
    peer.write(update([{ rect: { x: 0, y: 0, w: 8, h: 8 }, encoding: 0, body: Buffer.alloc(8 * 8 * 4, 0x40) }]));
    await readKeys(peer, keys.pve).catch(() => undefined);
  });
  const vncSocketPath = join(dir, 'vnc.sock');
  vncServer = net.createServer((socket) => {
    const upstream = screen.dial();
    for (const end of [socket, upstream]) end.on('error', () => socket.destroy());
    socket.pipe(upstream).pipe(socket);
  });
  await new Promise<void>((resolve) => vncServer.listen(vncSocketPath, resolve));
  const serialSocketPath = join(dir, 'serial.sock');
  serialServer = net.createServer((socket) => {
    socket.on('error', () => undefined);
    socket.write('login: ');
    socket.on('data', (chunk: Buffer) => (received.kubevirt += chunk.toString('latin1')));
  });
  await new Promise<void>((resolve) => serialServer.listen(serialSocketPath, resolve));
  kubevirt = await startKubevirtFixture({
    vmis: [
      { namespace: 'default', name: 'vm-line', graphics: false, serialSocketPath },
      { namespace: 'default', name: 'vm-screen', vncSocketPath },
    ],
  });
  pve = await startPveFixture({
    dir,
    guests: [
      {
        vmid: 120,
        name: 'line-1',
        node: 'pve1',
        type: 'qemu',
        status: 'running',
        serial: () => recordingLine((text) => (received.pve += text)),
      },
      {
        vmid: 121,
        name: 'screen-1',
        node: 'pve1',
        type: 'qemu',
        status: 'running',
        vnc: () => pveScreen.dial(),
        setVncPassword: async (password) => void (pveVncPassword = password),
      },
    ],
    tokens: { [TOKEN_ID]: TOKEN_SECRET },
  });
  openstack = await startOpenStackFixture({
    consoleTypes: ['serial', 'novnc'],
    serialLine: () => recordingLine((text) => (received.openstack += text)),
    vnc: () => openstackScreen.dial(),
  });
  const tokenFile = join(dir, 'token');
  await writeFile(tokenFile, `${TOKEN_ID}=${TOKEN_SECRET}\n`, { mode: 0o600 });
  pveArgs = ['--pve-url', pve.url, '--pve-token-file', tokenFile, '--ca', pve.caFile];
});
afterAll(async () => {
  await kubevirt?.close();
  await pve?.close();
  await openstack?.close();
  serialServer?.close();
  vncServer?.close();
  await screen?.close();
  await openstackScreen?.close();
  await pveScreen?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('type and send on the serial consoles and screens of cloud fixtures', () => {
  it('KubeVirt: the text and the chord arrive at the VMI serial line', async () => {
    const env = { HOME: dir, KUBECONFIG: kubevirt.kubeconfigPath() };
    const typed = await runVconsole(['type', 'vm-line#serial', '--', 'root'], env);
    expect(typed.code, typed.stderr).toBe(0);
    await waitFor(() => received.kubevirt.includes('root'), 'the typed text at the serial line');
    const sent = await runVconsole(['send', 'vm-line#serial', 'ctrl-d'], env);
    expect(sent.code, sent.stderr).toBe(0);
    await waitFor(() => received.kubevirt.endsWith('\x04'), 'ctrl-d at the serial line');
  });

  it('KubeVirt: the text arrives at the VMI screen as key events (keysyms), through the vnc subresource', async () => {
    const typed = await runVconsole(['type', 'vm-screen', '--', 'Ab'], { HOME: dir, KUBECONFIG: kubevirt.kubeconfigPath() });
    expect(typed.code, typed.stderr).toBe(0);
    await waitFor(() => keys.kubevirt.length >= 4, 'the key events at the screen');
    expect(keys.kubevirt).toEqual(['+41', '-41', '+62', '-62']);
  });

  it("Proxmox VE: the text and a chord arrive at the guest's screen as key events, through vncproxy's ticket and password", async () => {
    const typed = await runVconsole(['type', 'pve:121', ...pveArgs, '--', 'Ab'], { HOME: dir });
    expect(typed.code, typed.stderr).toBe(0);
    await waitFor(() => keys.pve.length >= 4, 'the key events at the screen');
    expect(keys.pve).toEqual(['+41', '-41', '+62', '-62']);
    const sent = await runVconsole(['send', 'pve:121', ...pveArgs, 'ctrl-alt-delete'], { HOME: dir });
    expect(sent.code, sent.stderr).toBe(0);
    await waitFor(() => keys.pve.length >= 10, 'the chord at the screen');
    expect(keys.pve.slice(4)).toEqual(['+ffe3', '+ffe9', '+ffff', '-ffff', '-ffe9', '-ffe3']);
  });

  it("OpenStack: the text and a chord arrive at the server's screen as key events, through nova-novncproxy", async () => {
    const env = { HOME: dir, ...fixtureOpenrc(openstack) };
    const typed = await runVconsole(['type', 'openstack:web-1', '--', 'Ab'], env);
    expect(typed.code, typed.stderr).toBe(0);
    await waitFor(() => keys.openstack.length >= 4, 'the key events at the screen');
    expect(keys.openstack).toEqual(['+41', '-41', '+62', '-62']);
    const sent = await runVconsole(['send', 'openstack:web-1', 'ctrl-alt-delete'], env);
    expect(sent.code, sent.stderr).toBe(0);
    await waitFor(() => keys.openstack.length >= 10, 'the chord at the screen');
    expect(keys.openstack.slice(4)).toEqual(['+ffe3', '+ffe9', '+ffff', '-ffff', '-ffe9', '-ffe3']);
  });

  it('Proxmox VE: the text and the chord arrive at the guest serial line through termproxy', async () => {
    const typed = await runVconsole(['type', 'pve:120#serial', ...pveArgs, '--', 'root'], { HOME: dir });
    expect(typed.code, typed.stderr).toBe(0);
    await waitFor(() => received.pve.includes('root'), 'the typed text at the serial line');
    const sent = await runVconsole(['send', 'pve:120#serial', 'ctrl-d', ...pveArgs], { HOME: dir });
    expect(sent.code, sent.stderr).toBe(0);
    await waitFor(() => received.pve.endsWith('\x04'), 'ctrl-d at the serial line');
  });

  it('OpenStack: the text and the chord arrive at the server serial line through nova-serialproxy', async () => {
    const env = { HOME: dir, ...fixtureOpenrc(openstack) };
    const typed = await runVconsole(['type', 'openstack:web-1#serial', '--', 'root'], env);
    expect(typed.code, typed.stderr).toBe(0);
    await waitFor(() => received.openstack.includes('root'), 'the typed text at the serial line');
    const sent = await runVconsole(['send', 'openstack:web-1#serial', 'ctrl-d'], env);
    expect(sent.code, sent.stderr).toBe(0);
    await waitFor(() => received.openstack.endsWith('\x04'), 'ctrl-d at the serial line');
  });
});
