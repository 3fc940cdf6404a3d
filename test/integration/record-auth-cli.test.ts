import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { encodeServerInit } from '../../src/rfb/wire/rfb-wire.js';
import { it, type Fixtures } from '../support/fixtures.js';
import { picture, startScriptedServer, u32, update, type RfbPeer } from '../support/fake-rfb-server.js';
import { liveScreen, pixelAt } from '../support/live-screen.js';
import { expectedVncResponse } from '../support/rfb-client.js';
import { waitFor } from '../support/wait.js';

// A recording must not hand out the console's password, and a replay on the network asks for one.

const W = 32;
const H = 24;
const GREEN = 0x30a050;
const CONSOLE_PASSWORD = 'vm-pass1';

/** A VNC server that demands VNC authentication with a fresh challenge per connection, then shows green. */
async function lockedServer(cleanup: Fixtures['cleanup']) {
  const exchanges: { challenge: Buffer; response: Buffer }[] = [];
  const server = await startScriptedServer(async (peer: RfbPeer) => {
    peer.write('RFB 003.008\n');
    await peer.read(12);
    peer.write([1, 2]);
    await peer.read(1);
    const challenge = randomBytes(16);
    peer.write(challenge);
    const response = await peer.read(16);
    exchanges.push({ challenge, response });
    if (!response.equals(expectedVncResponse(CONSOLE_PASSWORD, challenge))) {
      peer.write(Buffer.concat([u32(1), u32(5), Buffer.from('wrong')]));
      return;
    }
    peer.write(u32(0));
    await peer.read(1);
    peer.write(encodeServerInit(W, H, 'locked'));
    await peer.read(20);
    const count = (await peer.read(4)).readUInt16BE(2);
    await peer.read(count * 4);
    await peer.read(10);
    peer.write(update([{ rect: { x: 0, y: 0, w: W, h: H }, encoding: 0, body: picture(W, H, () => GREEN) }]));
    for (;;) {
      const type = (await peer.read(1))[0];
      if (type === 3) await peer.read(9);
      else return;
    }
  });
  cleanup.add(() => server.close());
  return { port: server.port, exchanges };
}

/** Records the locked console through proxy --record until a viewer saw it; the recording's path and the exchanges. */
async function recordLockedConsole({ cleanup, makeTmpDir, vconsole }: Pick<Fixtures, 'cleanup' | 'makeTmpDir' | 'vconsole'>) {
  const locked = await lockedServer(cleanup);
  const dir = makeTmpDir('vconsole-record-auth');
  const passFile = path.join(dir, 'console-pass');
  fs.writeFileSync(passFile, `${CONSOLE_PASSWORD}\n`, { mode: 0o600 });
  const proxy = vconsole.start([
    'proxy',
    `tcp://127.0.0.1:${locked.port}`,
    '--record',
    path.join(dir, 'rec'),
    '--vnc-password-file',
    passFile,
  ]);
  const [line] = await proxy.jsonLines(1);
  const viewer = await liveScreen(net.connect(line.port as number, '127.0.0.1'), {}, cleanup);
  await waitFor(() => pixelAt(viewer.framebuffer, 1, 1) === GREEN, 'the console through the proxy');
  await proxy.stop();
  const files = fs.readdirSync(path.join(dir, 'rec'));
  expect(files).toHaveLength(1);
  return { file: path.join(dir, 'rec', files[0]), exchanges: locked.exchanges };
}

describe('recordings and VNC authentication', () => {
  it('a recording of a console that asks for a VNC password holds neither its challenge nor the answer', async ({
    cleanup,
    makeTmpDir,
    vconsole,
  }) => {
    const { file, exchanges } = await recordLockedConsole({ cleanup, makeTmpDir, vconsole });
    expect(exchanges.length).toBeGreaterThanOrEqual(1);
    const bytes = fs.readFileSync(file);
    for (const { challenge, response } of exchanges) {
      expect(bytes.indexOf(challenge)).toBe(-1);
      expect(bytes.indexOf(response)).toBe(-1);
    }
    // The recording still replays: the picture comes back.
    const replay = vconsole.start(['replay', file]);
    const [line] = await replay.jsonLines(1);
    const viewer = await liveScreen(net.connect(line.port as number, '127.0.0.1'), {}, cleanup);
    await waitFor(() => pixelAt(viewer.framebuffer, 1, 1) === GREEN, 'the replayed picture');
  });

  it('replay --listen 0.0.0.0 speaks VeNCrypt only, with the certificate it names', async ({ cleanup, connect, makeTmpDir, vconsole }) => {
    const { file } = await recordLockedConsole({ cleanup, makeTmpDir, vconsole });
    const configHome = makeTmpDir('vconsole-replay-config');
    const replay = vconsole.start(['replay', file, '--listen', '0.0.0.0'], { XDG_CONFIG_HOME: configHome });
    const [line] = await replay.jsonLines(1);
    await replay.waitForStderr(
      /TLS certificate of this listener \(made now, give it to viewers as their CA file\): \S+ sha256 Fingerprint=/,
    );
    expect(fs.statSync(path.join(configHome, 'vconsole', 'tls', 'listener-key.pem')).mode & 0o777).toBe(0o600);
    const socket = connect(line.port as number);
    const heard: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => heard.push(chunk));
    await waitFor(() => Buffer.concat(heard).length >= 12, 'the banner');
    socket.write('RFB 003.008\n');
    await waitFor(() => Buffer.concat(heard).length >= 14, 'the security types');
    expect([...Buffer.concat(heard).subarray(12)]).toEqual([1, 19]);
  });

  it('replay --listen 0.0.0.0 warns and asks viewers for a generated password, shown once', async ({ cleanup, makeTmpDir, vconsole }) => {
    const { file } = await recordLockedConsole({ cleanup, makeTmpDir, vconsole });
    // liveScreen speaks plain VNC authentication, asked for by name beside VeNCrypt.
    const replay = vconsole.start(['replay', file, '--listen', '0.0.0.0', '--insecure-vnc-auth'], {
      XDG_CONFIG_HOME: makeTmpDir('vconsole-replay-config'),
    });
    const [line] = await replay.jsonLines(1);
    expect(line.address).toBe('0.0.0.0');
    await replay.waitForStderr(/VNC password for viewers of this listener: (\S+) \(shown once/);
    expect(replay.stderr()).toMatch(
      /^warning: listening on 0\.0\.0\.0: the replay is reachable from the network; viewers must speak TLS \(VeNCrypt X509Vnc\) with the certificate below and give the VNC password; --insecure-vnc-auth: viewers may also give it without TLS, in clear$/m,
    );
    const password = /VNC password for viewers of this listener: (\S+) \(shown once/.exec(replay.stderr())![1];
    const port = line.port as number;
    await expect(liveScreen(net.connect(port, '127.0.0.1'), {}, cleanup)).rejects.toThrow(/password/);
    const viewer = await liveScreen(net.connect(port, '127.0.0.1'), { password }, cleanup);
    await waitFor(() => pixelAt(viewer.framebuffer, 1, 1) === GREEN, 'the replayed picture with the password');
    expect(replay.stderr().split(password).length - 1).toBe(1);
  });
});
