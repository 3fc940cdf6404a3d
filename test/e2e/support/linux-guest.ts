import { existsSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { awaitSocketFile } from './net.js';
import { GiveUp, pollFor } from './poll.js';
import { runProgram, type ProcessLab, type RunningProcess } from './processes.js';
import { REPO_ROOT } from './tools.js';

/** The prompt the guest's shells print (scripts/guest/profile). */
export const GUEST_PROMPT = /guest# /;
/** What the guest's init prints on both consoles when Ctrl+Alt+Del reaches it (scripts/guest/inittab). */
export const CTRL_ALT_DEL_SEEN = /guest: ctrl-alt-del reached init/;

/** The kernel and initramfs scripts/guest/build.sh made (cached), or why there are none. */
export async function guestImages(): Promise<{ kernel: string; initrd: string } | { missing: string }> {
  const built = await runProgram('bash', [join(REPO_ROOT, 'scripts/guest/build.sh')], { timeoutMs: 600_000 });
  const dir = built.stdout.trim().split('\n').at(-1) ?? '';
  const kernel = join(dir, 'vmlinuz');
  const initrd = join(dir, 'initrd');
  if (built.code !== 0 || !existsSync(kernel) || !existsSync(initrd))
    return { missing: `scripts/guest/build.sh could not build the Linux guest: ${built.stderr.trim().split('\n').at(-1) ?? ''}` };
  return { kernel, initrd };
}

/** The guest's serial line as a test reads and writes it: QEMU serves one connection at a time. */
export class GuestSerial {
  private received = '';
  private constructor(private readonly socket: net.Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => (this.received += text));
    socket.on('error', () => undefined);
  }

  static async connect(path: string): Promise<GuestSerial> {
    const socket = net.connect(path);
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    return new GuestSerial(socket);
  }

  /** Everything the line printed since this connection opened (or since `mark`). */
  text(): string {
    return this.received;
  }

  write(text: string): void {
    this.socket.write(text);
  }

  /** Where the line's output is now, for `waitFor`'s `since`. */
  mark(): number {
    return this.received.length;
  }

  /** Waits for `pattern` in what the line prints from `since` (default: now) on, pressing Enter every `pokeMs` when given. */
  async waitFor(
    pattern: RegExp,
    what: string,
    { pokeMs, timeoutMs = 90_000, since }: { pokeMs?: number; timeoutMs?: number; since?: number } = {},
  ): Promise<string> {
    const from = since ?? this.received.length;
    let poked = Date.now();
    return pollFor(
      () => {
        if (this.socket.destroyed) throw new GiveUp('the serial connection closed');
        const match = pattern.exec(this.received.slice(from));
        if (match) return match[0];
        if (pokeMs !== undefined && Date.now() - poked >= pokeMs) {
          this.socket.write('\r');
          poked = Date.now();
        }
        return undefined;
      },
      { what, timeoutMs, intervalMs: 100, detail: () => `the line printed:\n${this.received.slice(from).slice(-2000)}` },
    );
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.destroyed) return resolve();
      this.socket.once('close', () => resolve());
      this.socket.end();
    });
  }
}

export interface LinuxGuest {
  name: string;
  /** QEMU's VNC server on a unix socket (unix://PATH). */
  vncPath: string;
  /** The serial line, a unix socket QEMU serves one connection at a time (unix://PATH#serial). */
  serialPath: string;
  /** QMP, for screendump. */
  qmpPath: string;
  process: RunningProcess;
}

/**
 * Boots the real Linux guest (scripts/guest/build.sh) under QEMU (TCG) with a VGA screen on a VNC
 * socket, its serial line and QMP on sockets, and resolves once its shell answers on the serial
 * line (the connection used to ask is closed again, for vconsole to take).
 */
export async function startLinuxGuest(
  lab: ProcessLab,
  images: { kernel: string; initrd: string },
  name: string,
  dir: string,
): Promise<LinuxGuest> {
  const vncPath = join(dir, `${name}.vnc.sock`);
  const serialPath = join(dir, `${name}.serial.sock`);
  const qmpPath = join(dir, `${name}.qmp.sock`);
  const args = [
    ...['-name', name, '-machine', 'accel=tcg', '-m', '128', '-nodefaults', '-vga', 'std', '-display', 'none'],
    ...['-kernel', images.kernel, '-initrd', images.initrd, '-append', 'console=tty0 console=ttyS0 quiet'],
    ...['-serial', `unix:${serialPath},server=on,wait=off`, '-vnc', `unix:${vncPath}`, '-qmp', `unix:${qmpPath},server=on,wait=off`],
  ];
  const qemu = lab.start(`qemu ${name} (Linux guest)`, 'qemu-system-x86_64', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  await awaitSocketFile(serialPath, `QEMU ${name}'s serial socket`, 30_000, () => qemu.describe());
  await awaitSocketFile(vncPath, `QEMU ${name}'s VNC socket`, 30_000, () => qemu.describe());
  const serial = await GuestSerial.connect(serialPath);
  try {
    await serial.waitFor(GUEST_PROMPT, `the guest's shell prompt on ${name}'s serial line`, { pokeMs: 1_000, timeoutMs: 180_000 });
  } finally {
    await serial.close();
  }
  return { name, vncPath, serialPath, qmpPath, process: qemu };
}
