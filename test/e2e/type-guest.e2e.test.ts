import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import net from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveScreen } from '../support/live-screen.js';
import type { Framebuffer } from '../../src/rfb/wire/framebuffer.js';
import { CTRL_ALT_DEL_SEEN, GUEST_PROMPT, GuestSerial, guestImages, startLinuxGuest, type LinuxGuest } from './support/linux-guest.js';
import { pollFor } from './support/poll.js';
import { ProcessLab, runProgram } from './support/processes.js';
import { E2E_SETUP_TIMEOUT_MS, E2E_TEST_TIMEOUT_MS, VCONSOLE_BIN, gatedTitle, requireTools } from './support/tools.js';
import { startProxy, vconsoleEnv } from './support/vconsole.js';

// `vconsole type` and `send` against a real Linux guest (scripts/guest/build.sh) under QEMU:
// typed text reaches its shells and runs, 1 KB arrives exactly at the measured pace, and
// Ctrl+Alt+Del reaches its init. What the VGA shell does is read back on the serial line.
// `vconsole wait` sees the shell's prompt on the VGA screen (OCR) and on the serial line.
const gate = requireTools(['qemu-system-x86_64']);
const images = gate.skip ? undefined : await guestImages();
const missing = images && 'missing' in images ? images.missing : undefined;
if (missing && process.env.VCONSOLE_E2E === 'required') throw new Error(`VCONSOLE_E2E=required but ${missing}`);
const skip = gate.skip ?? missing;

/** An action's log line on stderr without its time and user (`CONSOLE: typed 26 characters`). */
const action = (stderr: string) => stderr.replace(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \S+ /gm, '');

/** How many pixels below the first `top` rows are not black: the text a VGA console shows there. */
function litBelow(fb: Framebuffer, top: number): number {
  let lit = 0;
  for (let at = top * fb.width * 4; at + 4 <= fb.width * fb.height * 4; at += 4) if ((fb.pixels.readUInt32LE(at) & 0xffffff) !== 0) lit++;
  return lit;
}

function vconsole(...args: string[]) {
  return runProgram(process.execPath, [VCONSOLE_BIN, ...args], { env: vconsoleEnv(), timeoutMs: 170_000 });
}

/** 1 KB of printable ASCII in lines, the same every run. */
function script(): string {
  let seed = 38;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  const lines: string[] = [];
  for (let size = 0; size < 1024;) {
    const line = Array.from({ length: 20 + (next() % 50) }, () => String.fromCharCode(0x20 + (next() % 95))).join('');
    lines.push(line);
    size += line.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

describe.skipIf(skip)(gatedTitle('vconsole type and send into a real Linux guest', { skip }), () => {
  const lab = new ProcessLab();
  let guest: LinuxGuest;
  let serial: GuestSerial;
  let dir: string;
  let vnc: string;

  beforeAll(async () => {
    dir = await lab.tempDir('type-guest');
    if (!images || 'missing' in images) throw new Error('no guest');
    guest = await startLinuxGuest(lab, images, 'typed', dir);
    vnc = `unix://${guest.vncPath}`;
    serial = await GuestSerial.connect(guest.serialPath);
  }, E2E_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await serial?.close();
    await lab.cleanup();
  }, 60_000);

  it(
    'types a command on the VGA console that runs there: 42 on the serial line',
    async () => {
      const since = serial.mark();
      const run = await vconsole('type', vnc, '--', 'echo $((6*7)) >/dev/ttyS0\n');
      expect(run.code, run.stderr).toBe(0);
      expect(action(run.stderr)).toBe(`${vnc}: typed 26 characters (scancodes, us layout)\n`);
      await serial.waitFor(/^42\r?$/m, '42 on the serial line', { timeoutMs: 60_000, since });
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'types 1 KB of printable ASCII with no key lost',
    async () => {
      const text = script();
      const file = join(dir, 'script.txt');
      await writeFile(file, text);
      expect((await vconsole('type', vnc, '--', 'cat >/tmp/x\n')).code).toBe(0);
      const typed = await vconsole('type', vnc, '--file', file);
      expect(typed.code, typed.stderr).toBe(0);
      expect((await vconsole('send', vnc, 'ctrl-d')).code).toBe(0);
      const since = serial.mark();
      expect((await vconsole('type', vnc, '--', 'md5sum /tmp/x >/dev/ttyS0\n')).code).toBe(0);
      const md5 = createHash('md5').update(text).digest('hex');
      const said = await serial.waitFor(/[0-9a-f]{32} {2}\/tmp\/x/, "md5sum's answer on the serial line", { timeoutMs: 120_000, since });
      expect(said).toBe(`${md5}  /tmp/x`);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'types on the VGA console beside a viewer of the vconsole that holds it: the viewer stays and sees the screen cleared',
    async () => {
      const holder = await startProxy(lab, [vnc], ['--share']);
      const steps: (() => unknown)[] = [];
      try {
        const view = await liveScreen(net.connect(holder.ports[0].port, '127.0.0.1'), { shared: false }, steps);
        expect((await vconsole('type', vnc, '--', 'seq 1 20\n')).code).toBe(0);
        await pollFor(() => (litBelow(view.framebuffer, 32) > 0 ? true : undefined), { what: 'text on the viewer', timeoutMs: 60_000 });
        const since = serial.mark();
        const run = await vconsole('type', vnc, '--', 'clear; echo $((6*7)) >/dev/ttyS0\n');
        expect(run.code, run.stderr).toBe(0);
        await serial.waitFor(/^42\r?$/m, '42 on the serial line', { timeoutMs: 60_000, since });
        // The clear the viewer sees: nothing below the prompt's line.
        await pollFor(() => (litBelow(view.framebuffer, 32) === 0 ? true : undefined), {
          what: 'the cleared screen on the viewer',
          timeoutMs: 60_000,
          detail: () => `${litBelow(view.framebuffer, 32)} pixels lit`,
        });
        expect(view.closed()).toBe(false);
      } finally {
        for (const step of steps.reverse()) await step();
        await holder.interrupt();
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'sends Ctrl+Alt+Del to the guest, whose init says so',
    async () => {
      const since = serial.mark();
      const run = await vconsole('send', vnc, 'ctrl-alt-delete');
      expect(run.code, run.stderr).toBe(0);
      expect(action(run.stderr)).toBe(`${vnc}: sent ctrl-alt-delete\n`);
      await serial.waitFor(CTRL_ALT_DEL_SEEN, "init's Ctrl+Alt+Del line", { timeoutMs: 60_000, since });
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    'types on the serial line another vconsole holds, through its session: the holder sees the answer',
    async () => {
      await serial.close();
      const target = `unix://${guest.serialPath}#serial`;
      const holder = await startProxy(lab, [target], ['--share']);
      const watcher = net.connect(holder.ports[0].port, '127.0.0.1');
      let seen = '';
      watcher.on('data', (chunk: Buffer) => (seen += chunk.toString('latin1')));
      try {
        const run = await vconsole('type', target, '--', 'echo $((6*7))\n');
        expect(run.code, run.stderr).toBe(0);
        expect(action(run.stderr)).toBe(`${target}: typed 14 characters (serial, newline cr)\n`);
        await pollFor(() => (/^42\r?$/m.test(seen) && GUEST_PROMPT.test(seen) ? true : undefined), {
          what: "42 on the holder's client",
          timeoutMs: 60_000,
          detail: () => seen,
        });
        // The holder's own client is still there.
        expect(watcher.destroyed).toBe(false);
      } finally {
        watcher.destroy();
        await holder.interrupt();
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    "sends ctrl-c on the serial line another vconsole holds: the guest's sleep is interrupted and its shell prompts again",
    async () => {
      await serial.close();
      const target = `unix://${guest.serialPath}#serial`;
      const holder = await startProxy(lab, [target], ['--share']);
      const watcher = net.connect(holder.ports[0].port, '127.0.0.1');
      let seen = '';
      watcher.on('data', (chunk: Buffer) => (seen += chunk.toString('latin1')));
      try {
        expect((await vconsole('type', target, '--', 'sleep 1000; echo slept\n')).code).toBe(0);
        await pollFor(() => (seen.includes('sleep 1000; echo slept') ? true : undefined), {
          what: 'the command echoed on the line',
          timeoutMs: 60_000,
          detail: () => seen,
        });
        const since = seen.length;
        const run = await vconsole('send', target, 'ctrl-c');
        expect(action(run.stderr)).toBe(`${target}: sent ctrl-c\n`);
        // Without the interrupt the prompt would come back after 1000 s, after "slept".
        await pollFor(() => (GUEST_PROMPT.test(seen.slice(since)) ? true : undefined), {
          what: 'the prompt after ctrl-c',
          timeoutMs: 60_000,
          detail: () => seen.slice(since),
        });
        expect(seen.slice(since)).not.toContain('slept');
      } finally {
        watcher.destroy();
        await holder.interrupt();
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    "waits for text on the VGA screen, read with OCR: the guest's prompt, and what a typed command printed",
    async () => {
      const prompt = await vconsole('wait', vnc, '--for', 'guest#', '--timeout', '2m');
      expect(prompt.code, prompt.stderr).toBe(0);
      expect(prompt.stdout).toMatch(/guest#/);
      expect((await vconsole('type', vnc, '--', 'clear; echo waited $((6*7))\n')).code).toBe(0);
      const printed = await vconsole('wait', vnc, '--for', 'waited 42', '--timeout', '2m');
      expect(printed.code, printed.stderr).toBe(0);
      expect(printed.stdout).toMatch(/^waited 42\n$/);
    },
    E2E_TEST_TIMEOUT_MS,
  );

  it(
    "waits for the guest's prompt on the serial line another vconsole holds (its scrollback); --since now times out, exit 1",
    async () => {
      await serial.close();
      const target = `unix://${guest.serialPath}#serial`;
      const holder = await startProxy(lab, [target], ['--share']);
      try {
        // The shell prompts again after an empty line; the holder keeps what it printed.
        expect((await vconsole('type', target, '--', '\n')).code).toBe(0);
        const prompt = await vconsole('wait', target, '--for', 'guest# ?$', '--timeout', '2m');
        expect(prompt.code, prompt.stderr).toBe(0);
        expect(prompt.stdout).toMatch(/guest#\n$/);
        const timedOut = await vconsole('wait', target, '--for', 'guest#', '--since', 'now', '--timeout', '3s');
        expect(timedOut.code).toBe(1);
        expect(timedOut.stderr).toBe(`vconsole: /guest#/ did not appear within 3s on ${target}\n`);
      } finally {
        await holder.interrupt();
      }
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
