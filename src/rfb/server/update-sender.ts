/**
 * Sends one client its framebuffer updates: one at a time, each answering what the client
 * requested (or, with continuous updates, all the time) once something it covers changed, and
 * none while the connection's buffer is full. Answers that must follow the update being encoded
 * (a Fence's) wait behind it, a bounded few.
 */
import type { Duplex } from 'node:stream';
import type { Framebuffer } from '../wire/framebuffer.js';
import { RfbProtocolError } from '../wire/rfb-wire.js';
import type { ClientWants } from './client-messages.js';
import type { ClientDamage } from './damage.js';
import type { ClientEncoders } from './encoders/index.js';
import type { ClientExtensions } from './extensions.js';
import type { ClientOutput } from './output.js';
import type { PixelPacker } from '../wire/pixel-values.js';
import { encodeUpdate } from './update.js';

/** Answers held behind an update one client may have before it is dropped (a client that never reads). */
const MAX_HELD_ANSWERS = 64;

/** What sending updates needs of its connection. */
interface UpdateHost {
  readonly framebuffer: Framebuffer;
  readonly pending: ClientDamage;
  readonly encoders: ClientEncoders;
  readonly extensions: ClientExtensions;
  /** The client's connection and its output, as they are now (they change once TLS is up). */
  readonly stream: Duplex;
  readonly output: ClientOutput;
  readonly packer: PixelPacker;
  readonly wants: ClientWants;
  /** The connection is closed, or its handshake not over: nothing goes out. */
  readonly silent: boolean;
  readonly closed: boolean;
  /** Writes a message between updates. */
  writeMessage(message: Buffer): void;
  finish(err: Error): void;
}

export class UpdateSender {
  /** An update is being encoded or waits for the stream to drain; damage meanwhile is coalesced. */
  busy = false;
  /** Fence answers and the like that go out behind the update being encoded. */
  private afterUpdate: Buffer[] = [];

  constructor(private readonly host: UpdateHost) {}

  /** Writes `message` now, or behind the update being encoded. */
  writeAfterUpdate(message: Buffer): void {
    if (!this.busy) return this.host.writeMessage(message);
    if (this.afterUpdate.length >= MAX_HELD_ANSWERS)
      throw new RfbProtocolError(`more than ${MAX_HELD_ANSWERS} answers held behind one update`);
    this.afterUpdate.push(message);
  }

  close(): void {
    this.afterUpdate = [];
  }

  /**
   * Answers the pending request when something it covers changed. One update at a time, and
   * none while the stream's buffer is full: a client that stops reading costs one update of
   * memory plus its (bounded) damage list.
   */
  sendIfDue(): void {
    const host = this.host;
    if (this.busy || host.silent) return;
    // Continuous updates: the area stands requested all the time.
    const continuous = host.extensions.continuousArea();
    if (continuous) host.pending.request(continuous, true);
    const plan = host.pending.plan(host.framebuffer, { ...host.wants, copyRect: host.encoders.copyRect });
    if (!plan) return;
    if (plan.size && host.extensions.extendedDesktopSize) plan.size.extended = true;
    this.busy = true;
    const cancelled = () => host.closed;
    encodeUpdate(plan, host.framebuffer, host.packer, host.encoders, { cancelled }).then(
      (parts) => {
        if (host.closed) return;
        const stream = host.stream;
        const output = host.output;
        // Corked, the parts leave in one writev; the last write's answer covers all that is buffered.
        stream.cork();
        let drained = true;
        for (const part of parts) drained = output.write(part);
        stream.uncork();
        const resume = () => {
          this.busy = false;
          output.release();
          for (const message of this.afterUpdate.splice(0)) host.writeMessage(message);
          this.sendIfDue();
        };
        if (drained) resume();
        else stream.once('drain', resume);
      },
      (err: Error) => host.finish(err),
    );
  }
}
