import net from 'node:net';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parsePpm, type RgbImage } from './images.js';
import { awaitSocketFile } from './net.js';

/**
 * A QMP session (QEMU's JSON control socket, `-qmp unix:PATH,server=on,wait=off`): commands
 * one at a time, each answered by a `return` or an `error` line; events in between are skipped.
 */
export class Qmp {
  private buffered = '';
  private waiting: { resolve: (value: unknown) => void; reject: (err: Error) => void } | undefined;

  private constructor(private readonly socket: net.Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => {
      this.buffered += text;
      for (let end = this.buffered.indexOf('\n'); end >= 0; end = this.buffered.indexOf('\n')) {
        const line = this.buffered.slice(0, end).trim();
        this.buffered = this.buffered.slice(end + 1);
        if (line) this.answer(JSON.parse(line) as Record<string, unknown>);
      }
    });
    // QEMU going away ends the session; a command in flight fails with the reason.
    socket.on('error', (err) => this.waiting?.reject(err));
    socket.on('close', () => this.waiting?.reject(new Error('QMP socket closed')));
  }

  static async connect(path: string): Promise<Qmp> {
    await awaitSocketFile(path, `QEMU's QMP socket ${path}`);
    const socket = net.connect(path);
    const qmp = new Qmp(socket);
    await new Promise<unknown>((resolve, reject) => (qmp.waiting = { resolve, reject })); // the greeting
    await qmp.execute('qmp_capabilities');
    return qmp;
  }

  private answer(message: Record<string, unknown>): void {
    if ('event' in message) return;
    const waiting = this.waiting;
    this.waiting = undefined;
    if (!waiting) return;
    if ('error' in message) waiting.reject(new Error(`QMP error: ${JSON.stringify(message.error)}`));
    else waiting.resolve(message.return ?? message.QMP);
  }

  execute(command: string, args?: Record<string, unknown>): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket.write(`${JSON.stringify({ execute: command, ...(args ? { arguments: args } : {}) })}\n`);
    });
  }

  /** QEMU's own picture of the display, through `screendump` to a PPM file in `dir`. */
  async screendump(dir: string): Promise<RgbImage> {
    const file = join(dir, `screendump-${process.pid}-${Date.now()}.ppm`);
    await this.execute('screendump', { filename: file });
    return parsePpm(await readFile(file));
  }

  close(): void {
    this.socket.destroy();
  }
}
