// `vconsole type` and `send` against a scripted RFB server, through the CLI: the exact key events
// a screen gets (QEMU's extended key events with the layout's scancodes where the server offers
// them, keysyms where it does not), and what is refused before anything is sent.
import net from 'node:net';
import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { runVconsole } from '../support/cli.js';
import { serveHandshake, startScriptedServer, update, type RfbPeer } from '../support/fake-rfb-server.js';
import { waitFor } from '../support/wait.js';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const SIZE = 8;

/** What a screen received: each key event as `+`/`-`, its keysym and, for a QEMU key event, its scancode. */
interface FakeConsole {
  address: string;
  connections: number;
  keys: string[];
}

/** Reads client messages until the client hangs up, noting every key event. */
async function readKeys(peer: RfbPeer, keys: string[]): Promise<void> {
  for (;;) {
    const type = (await peer.read(1))[0];
    if (type === 3) await peer.read(9);
    else if (type === 4) {
      const body = await peer.read(7);
      keys.push(`${body[0] ? '+' : '-'}${body.readUInt32BE(3).toString(16)}`);
    } else if (type === 255) {
      const body = await peer.read(11);
      keys.push(`${body.readUInt16BE(1) ? '+' : '-'}${body.readUInt32BE(3).toString(16)}/${body.readUInt32BE(7).toString(16)}`);
    } else throw new Error(`unexpected client message ${type}`);
  }
}

/** A screen that draws one whole picture and, with `qemuKeys`, says it takes QEMU's extended key events. */
async function fakeConsole(qemuKeys: boolean): Promise<FakeConsole> {
  const seen: FakeConsole = { address: '', connections: 0, keys: [] };
  const server = await startScriptedServer(async (peer) => {
    seen.connections++;
    await serveHandshake(peer, SIZE, SIZE);
    const rect = { x: 0, y: 0, w: SIZE, h: SIZE };
    const rects = [{ rect, encoding: 0, body: Buffer.alloc(SIZE * SIZE * 4, 0x40) }];
    peer.write(update(qemuKeys ? [...rects, { rect, encoding: -258 }] : rects));
    await readKeys(peer, seen.keys).catch(() => undefined);
  });
  cleanup.push(() => server.close());
  seen.address = `tcp://127.0.0.1:${server.port}`;
  return seen;
}

/** An action's log line: when (UTC, to the second), who (this user), then the console and what was done. */
const ACTION_LINE = new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ ${os.userInfo().username} (.*)$`);

/**
 * Runs `vconsole COMMAND --no-join ARGS...` (everything after -- is text): its stderr's lines, and
 * each action line after its time and user (`CONSOLE: typed 4 characters`).
 */
async function run([command, ...args]: string[]) {
  const result = await runVconsole([command, '--no-join', ...args]);
  const lines = result.stderr.trimEnd().split('\n');
  const actions = lines.map((line) => ACTION_LINE.exec(line)?.[1]).filter((line) => line !== undefined);
  return { ...result, lines, actions };
}

describe('vconsole type and send against an RFB server', () => {
  it('types with the de layout: Shift and AltGr around their keys, newline as Return, as QEMU key events', async () => {
    const screen = await fakeConsole(true);
    const result = await run(['type', screen.address, '--layout', 'de', '--', 'Az€\n']);
    expect(result.code).toBe(0);
    expect(screen.keys).toEqual([
      // A: Shift (0x2a) around the a key (0x1e)
      '+ffe1/2a',
      '+41/1e',
      '-41/1e',
      '-ffe1/2a',
      // z: on a German keyboard it is where a US y is (0x15)
      '+7a/15',
      '-7a/15',
      // €: AltGr (0xb8, ISO_Level3_Shift) around the e key (0x12); its keysym is 0x01000000 + U+20AC
      '+fe03/b8',
      '+10020ac/12',
      '-10020ac/12',
      '-fe03/b8',
      // the newline: Return
      '+ff0d/1c',
      '-ff0d/1c',
    ]);
    // The action's one line says what was done, never the text.
    expect(result.lines).toHaveLength(1);
    expect(result.actions).toEqual([`${screen.address}: typed 4 characters (scancodes, de layout)`]);
  });

  it('types a character no layout has as its Unicode keysym where the screen takes no QEMU key events', async () => {
    const screen = await fakeConsole(false);
    const result = await run(['type', screen.address, '--', 'é→\n']);
    expect(result.code).toBe(0);
    // é is Latin-1, its own keysym; → (U+2192) is 0x01002192; the newline is Return.
    expect(screen.keys).toEqual(['+e9', '-e9', '+1002192', '-1002192', '+ff0d', '-ff0d']);
    expect(result.lines).toHaveLength(1);
    expect(result.actions).toEqual([`${screen.address}: typed 3 characters (keysyms)`]);
  });

  it('refuses a character the layout cannot type on a scancode screen, naming it, and sends nothing to any console', async () => {
    const scancodes = await fakeConsole(true);
    const keysyms = await fakeConsole(false);
    const result = await run(['type', keysyms.address, scancodes.address, '--', 'ok →']);
    expect(result.code).toBe(2);
    expect(result.lines).toEqual([
      `vconsole: ${scancodes.address}: the us layout cannot type "→" (U+2192); give the guest's layout with --layout, or send the text to a serial console`,
    ]);
    expect([scancodes.keys, keysyms.keys]).toEqual([[], []]);
  });

  it('refuses a control character before dialling any screen', async () => {
    const screen = await fakeConsole(true);
    const result = await run(['type', screen.address, '--', 'a\u0007b']);
    expect(result.code).toBe(2);
    expect(result.lines).toEqual(['vconsole: cannot type U+0007: it is a control character; send it with vconsole send']);
    expect(screen.connections).toBe(0);
  });

  it('sends a chord held down in order and let go in reverse', async () => {
    const screen = await fakeConsole(true);
    const result = await run(['send', screen.address, 'ctrl-alt-delete', '--hold', '1']);
    expect(result.code).toBe(0);
    expect(screen.keys).toEqual(['+ffe3/1d', '+ffe9/38', '+ffff/d3', '-ffff/d3', '-ffe9/38', '-ffe3/1d']);
    expect(result.lines).toHaveLength(1);
    expect(result.actions).toEqual([`${screen.address}: sent ctrl-alt-delete`]);
  });

  it('refuses an unknown key name, naming it and the key it may mean, before dialling', async () => {
    const screen = await fakeConsole(true);
    const result = await run(['send', screen.address, '--', 'ctrl-alt-delet']);
    expect(result.code).toBe(2);
    expect(result.lines).toEqual(['vconsole: unknown key "delet" in "ctrl-alt-delet"; did you mean "delete"?']);
    expect(screen.connections).toBe(0);
  });
});

/** A raw TCP serial console that keeps every byte it is sent. */
async function serialLine(): Promise<{ address: string; connections: number; bytes: () => Buffer }> {
  const chunks: Buffer[] = [];
  const seen = { address: '', connections: 0, bytes: () => Buffer.concat(chunks) };
  const server = net.createServer((socket) => {
    seen.connections++;
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('end', () => socket.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(() => new Promise((resolve) => server.close(resolve)));
  seen.address = `tcp://127.0.0.1:${(server.address() as net.AddressInfo).port}#serial`;
  return seen;
}

describe('vconsole type and send on a serial line', () => {
  it('sends ctrl-c as the control character and types a newline as --newline says', async () => {
    const line = await serialLine();
    expect((await run(['send', line.address, 'ctrl-c', 'esc'])).code).toBe(0);
    await waitFor(() => line.bytes().length === 2, 'the two keys');
    const typed = await run(['type', line.address, '--newline', 'crlf', '--', 'ls\n']);
    expect(typed.code).toBe(0);
    expect(typed.actions).toEqual([`${line.address}: typed 3 characters (serial, newline crlf)`]);
    await waitFor(() => line.bytes().length === 6, 'the typed bytes');
    expect(line.bytes().toString('latin1')).toBe('\x03\x1bls\r\n');
  });

  it('refuses a screen-only option for a serial line in one line, exit 2, before dialling', async () => {
    const line = await serialLine();
    const result = await run(['type', line.address, '--layout', 'de', '--', 'ls\n']);
    expect(result.code).toBe(2);
    expect(result.lines).toEqual([
      `vconsole: --layout is for screens (VNC), and ${line.address} is a serial line; type into it without --layout, in a command of its own`,
    ]);
    expect(line.connections).toBe(0);
  });

  it('says in one line, exit 1, that a console could not be reached', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const address = `tcp://127.0.0.1:${(closed.address() as net.AddressInfo).port}#serial`;
    await new Promise((resolve) => closed.close(resolve));
    const result = await run(['send', address, 'ctrl-c']);
    expect(result.code).toBe(1);
    expect(result.lines).toHaveLength(1);
    expect(result.lines[0]).toMatch(new RegExp(`^vconsole: ${address.replace(/[.]/g, '\\.')}: .*refused`));
  });

  it('refuses break in one line naming the transport, sending none of the keys', async () => {
    const line = await serialLine();
    const result = await run(['send', line.address, 'ctrl-c', 'break']);
    expect(result.code).toBe(2);
    expect(result.lines).toEqual([
      `vconsole: ${line.address}: no BREAK on this serial line: a raw TCP console carries bytes; send ctrl-c, or a magic SysRq with alt-sysrq-KEY on its screen`,
    ]);
    expect(line.connections).toBe(0);
  });
});

describe('the action log', () => {
  it('says who typed how much into which console and when, never the text, even with --verbose', async () => {
    const secret = 'hunter2-Secret';
    const screen = await fakeConsole(false);
    const line = await serialLine();
    const result = await run(['type', '--verbose', screen.address, line.address, '--', secret]);
    expect(result.code).toBe(0);
    // One line per console, in the order they were named.
    expect(result.actions).toEqual([
      `${screen.address}: typed 14 characters (keysyms)`,
      `${line.address}: typed 14 characters (serial, newline cr)`,
    ]);
    for (const part of [secret, 'hunter', 'Secret']) expect(result.stderr + result.stdout).not.toContain(part);
    // What the consoles got was the text.
    await waitFor(() => line.bytes().toString() === secret, 'the serial bytes');
    expect(screen.keys).toHaveLength(secret.length * 2);
  });
});
