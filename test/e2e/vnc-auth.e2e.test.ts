import { readdir, readFile, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ByteReader, expectedVncResponse } from '../support/rfb-client.js';
import { awaitSocketFile } from './support/net.js';
import { ProcessLab, runProgram, runProgramBinary } from './support/processes.js';
import { Qmp } from './support/qmp.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, gatedTitle, requireTools } from './support/tools.js';
import { startProxy } from './support/vconsole.js';
import { qemuPcArgs } from './support/qemu.js';

// VNC authentication with real peers: QEMU as a console that demands a password (its challenge
// must not reach the recording) and vncsnapshot (TightVNC's RFB 3.3 client) as a viewer that
// guesses the viewer password of an exposed listener.
const gate = requireTools(['qemu-system-x86_64', 'vncsnapshot', 'vncpasswd']);

describe.skipIf(gate.skip)(gatedTitle('VNC authentication against QEMU and vncsnapshot', gate), () => {
  const lab = new ProcessLab();
  let dir: string;
  let vncPath: string;
  let qmp: Qmp;

  beforeAll(async () => {
    dir = await lab.tempDir('vnc-auth');
    vncPath = join(dir, 'locked.vnc.sock');
    const qmpPath = join(dir, 'locked.qmp.sock');
    const qemu = lab.start('qemu locked', 'qemu-system-x86_64', [
      ...qemuPcArgs('locked'),
      '-vnc',
      `unix:${vncPath},password=on`,
      '-qmp',
      `unix:${qmpPath},server=on,wait=off`,
      '-boot',
      'menu=on,splash-time=60000',
    ]);
    await awaitSocketFile(vncPath, "QEMU's VNC socket", 60_000, () => qemu.describe());
    qmp = await Qmp.connect(qmpPath);
    await qmp.execute('change-vnc-password', { password: 'qemu-pw1' });
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    qmp?.close();
    await lab.cleanup();
  }, 60_000);

  /** A TCP port in front of QEMU's socket that keeps every byte both ways, as a wire tap would. */
  async function wiretap(): Promise<{ port: number; server: Buffer[]; client: Buffer[]; close(): void }> {
    const server: Buffer[] = [];
    const client: Buffer[] = [];
    const sockets: net.Socket[] = [];
    const listener = net.createServer((socket) => {
      const upstream = net.connect(vncPath);
      sockets.push(socket, upstream);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
      socket.on('data', (chunk: Buffer) => client.push(chunk));
      upstream.on('data', (chunk: Buffer) => server.push(chunk));
      socket.pipe(upstream).pipe(socket);
    });
    await new Promise<void>((done) => listener.listen(0, '127.0.0.1', done));
    return {
      port: (listener.address() as net.AddressInfo).port,
      server,
      client,
      close: () => {
        for (const s of sockets) s.destroy();
        listener.close();
      },
    };
  }

  /** A wrong answer over a hand-made RFB 3.8 handshake: `sent` once written, `result` the SecurityResult. */
  function wrongAnswer(port: number): { sent: Promise<void>; result: Promise<number> } {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    const reader = new ByteReader(socket);
    const read = (n: number) => reader.read(n, 60_000, 'the handshake');
    let sent!: () => void;
    const written = new Promise<void>((resolve) => (sent = resolve));
    const result = (async () => {
      await read(12);
      socket.write('RFB 003.008\n');
      await read((await read(1))[0]);
      socket.write(Buffer.from([2]));
      socket.write(expectedVncResponse('not-it!', await read(16)), () => sent());
      const code = (await read(4)).readUInt32BE(0);
      socket.destroy();
      return code;
    })();
    return { sent: written, result };
  }

  it(
    "a recording of QEMU behind VNC auth holds neither QEMU's challenge nor vconsole's answer",
    async () => {
      const tap = await wiretap();
      const passFile = join(dir, 'qemu-pass');
      await writeFile(passFile, 'qemu-pw1\n', { mode: 0o600 });
      const recordings = join(dir, 'recordings');
      const proxy = await startProxy(lab, [`tcp://127.0.0.1:${tap.port}`], ['--record', recordings, '--vnc-password-file', passFile]);
      await proxy.interrupt();
      tap.close();
      const fromQemu = Buffer.concat(tap.server);
      const fromVconsole = Buffer.concat(tap.client);
      // RFB 3.8: version (12), the type list (count, types), then QEMU's 16-byte challenge; the answer follows the client's pick.
      const count = fromQemu[12];
      expect([...fromQemu.subarray(13, 13 + count)]).toContain(2);
      expect(fromVconsole[12]).toBe(2);
      const challenge = fromQemu.subarray(13 + count, 29 + count);
      const response = fromVconsole.subarray(13, 29);
      expect(challenge).toHaveLength(16);
      const file = join(recordings, (await readdir(recordings)).find((f) => f.endsWith('.vncrec')) ?? 'missing');
      const recorded = await readFile(file);
      expect(recorded.indexOf(challenge)).toBe(-1);
      expect(recorded.indexOf(response)).toBe(-1);
      // The rest of the handshake is there: QEMU's ServerInit with its name.
      expect(recorded.includes(Buffer.from('QEMU (locked)'))).toBe(true);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'vncsnapshot guessing the viewer password of an exposed listener is held back; the right one works after',
    async () => {
      const consolePass = join(dir, 'console-pass');
      await writeFile(consolePass, 'qemu-pw1\n', { mode: 0o600 });
      const viewerPass = join(dir, 'viewer-pass');
      await writeFile(viewerPass, 'v1ewer-p\n', { mode: 0o600 });
      const proxy = await startProxy(
        lab,
        [`unix://${vncPath}`],
        // vncsnapshot speaks RFB 3.3 without VeNCrypt: plain VNC authentication, asked for by name.
        ['--share', '--listen', '0.0.0.0', '--insecure-vnc-auth', '--password-file', viewerPass, '--vnc-password-file', consolePass],
        { XDG_CONFIG_HOME: join(dir, 'config') },
      );
      const port = proxy.ports[0].port;
      const obfuscated = async (name: string, password: string) => {
        const file = join(dir, name);
        await writeFile(file, await runProgramBinary('sh', ['-c', `printf '%s\\n' '${password}' | vncpasswd -f`]));
        return file;
      };
      const [right, wrong] = [await obfuscated('right.vncpasswd', 'v1ewer-p'), await obfuscated('wrong.vncpasswd', 'wrong-pw')];
      const snapshot = (passwd: string) =>
        runProgram('vncsnapshot', ['-verbose', '-passwd', passwd, `127.0.0.1::${port}`, join(dir, 'shot.jpg')], { timeoutMs: 90_000 });

      // A wrong answer is held at least 1 s before vncsnapshot hears it.
      const startedAt = Date.now();
      const first = await snapshot(wrong);
      expect(first.code).not.toBe(0);
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(800);
      // While the next wrong answer is held, even the right password is refused at once, with the
      // reason. That answer is sent before vncsnapshot starts, so it is checked first.
      const guess = wrongAnswer(port);
      await guess.sent;
      let held: Awaited<ReturnType<typeof snapshot>> | undefined;
      for (let i = 0; i < 50 && !held; i++) {
        const attempt = await snapshot(right);
        if (/too many wrong passwords from this address/.test(attempt.stdout + attempt.stderr)) held = attempt;
      }
      expect(held, 'a refusal while the address is held back').toBeDefined();
      expect(held?.code).not.toBe(0);
      expect(await guess.result).toBe(1);
      // Once the hold is over the right password gets QEMU's screen.
      const good = await snapshot(right);
      expect(good.code, good.stdout + good.stderr).toBe(0);
      expect(`${good.stdout}\n${good.stderr}`).toMatch(/Desktop name "QEMU \(locked\)"/);
      expect(proxy.process.stderr().match(/wrong VNC password from 127\.0\.0\.1/g)).toHaveLength(1);
      await proxy.interrupt();
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
