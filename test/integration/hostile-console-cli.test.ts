// One hostile console beside a healthy one, through the CLI: whatever the bad one sends (a
// version nobody speaks, a picture that does not decode, a hang-up mid-handshake), the healthy
// port keeps serving its picture, the process stays up and the bad one's line says why.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedServer, serveHandshake, u32, update, type RfbPeer } from '../support/fake-rfb-server.js';
import { probeRfb } from '../support/rfb-client.js';
import { runVconsole, startVconsole, type RunningVconsole } from '../support/cli.js';
import { waitFor } from '../support/wait.js';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

function start(args: string[]): RunningVconsole {
  const child = startVconsole(args);
  cleanup.push(() => child.kill());
  return child;
}

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-hostile-'));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

interface Hostility {
  what: string;
  script(peer: RfbPeer): Promise<void>;
  /** What the bad console's line says. */
  reason: RegExp;
}

const HOSTILE: Hostility[] = [
  {
    what: 'answers RFB 009.999 and garbage',
    script: async (peer) => {
      peer.write('RFB 009.999\n');
      peer.write(Buffer.alloc(256, 0xab));
    },
    reason: /version 9\.999/,
  },
  {
    what: 'completes the handshake, then sends a ZRLE rectangle that does not inflate',
    script: async (peer) => {
      await serveHandshake(peer, 64, 48, 'evil');
      peer.write(update([{ rect: { x: 0, y: 0, w: 64, h: 48 }, encoding: 16, body: Buffer.concat([u32(64), Buffer.alloc(64, 0xee)]) }]));
    },
    reason: /corrupt|broke the protocol/,
  },
  {
    what: 'closes the connection mid-handshake',
    script: async (peer) => {
      peer.write('RFB 003.008\n');
      await peer.read(12);
      peer.socket.destroy();
    },
    reason: /closed/,
  },
];

async function hostileServer(hostility: Hostility): Promise<string> {
  const server = await startScriptedServer(hostility.script);
  cleanup.push(() => server.close());
  return `tcp://127.0.0.1:${server.port}`;
}

/** The healthy console's port serves a whole picture to an RFB client. */
async function expectPicture(port: number): Promise<void> {
  const probe = await probeRfb(net.connect(port, '127.0.0.1'), { readFrame: true, timeoutMs: 15_000 });
  expect(probe.width).toBeGreaterThan(0);
  expect(probe.frame?.length).toBe(probe.width * probe.height * 4);
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A whole picture and, in the same write, an update that does not decode. */
const PICTURE_THEN_GARBAGE: Hostility = {
  what: 'sends its first picture and garbage in one write',
  script: async (peer) => {
    await serveHandshake(peer, 64, 48, 'evil');
    const whole = update([{ rect: { x: 0, y: 0, w: 64, h: 48 }, encoding: 0, body: Buffer.alloc(64 * 48 * 4, 0x55) }]);
    const garbage = update([{ rect: { x: 0, y: 0, w: 64, h: 48 }, encoding: 16, body: Buffer.concat([u32(64), Buffer.alloc(64, 0xee)]) }]);
    peer.write(Buffer.concat([whole, garbage]));
  },
  reason: /zlib|corrupt|broke the protocol/,
};

const SHARING_COMMANDS: [string, string[]][] = [
  ['proxy --share', ['proxy', '--share']],
  ['proxy --record', ['proxy', '--record', '<dir>']],
  ['open --no-tui --share', ['open', '--no-tui', '--viewer', 'none', '--share']],
  ['open --no-tui --record', ['open', '--no-tui', '--viewer', 'none', '--record', '<dir>']],
];

describe.each([...HOSTILE, PICTURE_THEN_GARBAGE])('a shared console that $what, beside demo:vm-a', (hostility) => {
  it.each(SHARING_COMMANDS)('%s: the healthy port serves its picture, the process stays up, the bad line says why', async (_name, args) => {
    const bad = await hostileServer(hostility);
    const child = start([...args.map((a) => (a === '<dir>' ? tempDir() : a)), bad, 'demo:vm-a']);
    const [line] = await child.jsonLines(1);
    expect(line.target).toBe('demo:vm-a');
    await child.waitForStderr(new RegExp(`\\[${escaped(bad)}\\] error: .*${hostility.reason.source}`));
    await expectPicture(line.port as number);
    expect(child.process.exitCode).toBe(null);
    // Only the healthy console got a port.
    expect(
      child
        .stdout()
        .split('\n')
        .filter((l) => l.startsWith('{')),
    ).toHaveLength(1);
  });
});

describe.each(HOSTILE)('a console that $what, beside demo:vm-a, not shared', (hostility) => {
  it('proxy without --share: a client of the bad port leaves the healthy one serving', async () => {
    const bad = await hostileServer(hostility);
    const child = start(['proxy', bad, 'demo:vm-a']);
    const lines = await child.jsonLines(2);
    const badPort = lines.find((l) => l.target === bad)?.port as number;
    const goodPort = lines.find((l) => l.target === 'demo:vm-a')?.port as number;
    await expect(probeRfb(net.connect(badPort, '127.0.0.1'), { readFrame: true, timeoutMs: 10_000 })).rejects.toThrow();
    await expectPicture(goodPort);
    expect(child.process.exitCode).toBe(null);
  });

  it('screenshot: the healthy picture is written, the bad one is named with why', async () => {
    const bad = await hostileServer(hostility);
    const dir = tempDir();
    const result = await runVconsole(['screenshot', bad, 'demo:vm-a', '-o', dir]);
    expect(result.code).toBe(1);
    expect(fs.readdirSync(dir)).toEqual(['demo_vm-a.png']);
    expect(result.stderr).toMatch(new RegExp(`^vconsole: ${escaped(bad)}: .*${hostility.reason.source}`, 'm'));
  });
});

describe('a shared console that breaks the protocol once live', () => {
  it('drops and is dialled again, its line says why, and the healthy port serves throughout', async () => {
    let connections = 0;
    const server = await startScriptedServer(async (peer) => {
      connections++;
      await serveHandshake(peer, 64, 48, 'evil');
      peer.write(update([{ rect: { x: 0, y: 0, w: 64, h: 48 }, encoding: 0, body: Buffer.alloc(64 * 48 * 4, 0x55) }]));
      await peer.read(10); // the next update request: the hub is live
      peer.write(Buffer.from([0xfe]));
    });
    cleanup.push(() => server.close());
    const bad = `tcp://127.0.0.1:${server.port}`;
    const child = start(['proxy', '--share', bad, 'demo:vm-a']);
    const lines = await child.jsonLines(2);
    await child.waitForStderr(
      new RegExp(`\\[${escaped(bad)}\\] warning: console dropped: .*unknown server message type 254; reconnecting`),
    );
    await expectPicture(lines.find((l) => l.target === 'demo:vm-a')?.port as number);
    await waitFor(() => connections >= 2, 'the hub to dial the console again');
    expect(child.process.exitCode).toBe(null);
  });
});

describe('with nothing healthy beside it', () => {
  it('proxy --share exits 1 with the bad console named once', async () => {
    const bad = await hostileServer(HOSTILE[0]);
    const result = await runVconsole(['proxy', '--share', bad]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^vconsole: ${escaped(bad)}: .*version 9\\.999`, 'm'));
    expect(result.stdout).toBe('');
  });
});
