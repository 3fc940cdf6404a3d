// Both ends of the via connection: frames in from one byte stream, out to another (taking turns
// there, frame-output.ts); requests and their replies, console streams with their windows, the
// far side's log lines, and errors as they cross (wire-error.ts).
import { EventEmitter } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { VconsoleError } from '../errors.js';
import type { LogLevel } from '../proxy/types.js';
import { withConsolePassword } from '../streams/console-password.js';
import {
  FrameReader,
  FrameType,
  MAX_CONTROL_BYTES,
  ViaProtocolError,
  encodeFrame,
  encodeJsonFrame,
  jsonBody,
  type Frame,
} from './frames.js';
import { FrameOutput } from './frame-output.js';
import { MuxStream, type StreamCarrier } from './mux-stream.js';
import { fromWireError, toWireError } from './wire-error.js';

/** What each side says first. */
interface ViaHello {
  protocol: number;
  version: string;
}

/** What the far side does with what the near side asks. */
export interface FarHandlers {
  request(op: string, body: Record<string, unknown>): Promise<unknown>;
  /**
   * Dials the console `body` names for `stream`; its log lines go to `log`. Rejects when it
   * cannot. Resolves with the password the console asks of this dial (Proxmox VE's one-time VNC
   * password), which the near stream then carries as the far one did.
   */
  open(body: Record<string, unknown>, stream: MuxStream, log: (level: LogLevel, message: string) => void): Promise<OpenedConsole | void>;
}

/** What the far side tells of a stream it dialled. */
interface OpenedConsole {
  consolePassword?: string;
}

interface ConnectionOptions {
  /** The far side answers requests and opens; the near side asks. */
  far?: FarHandlers;
  /** The error every stream and request ends with when the input ends. */
  lost: () => Error;
}

/** A far log line at most this long. */
const MAX_LOG_CHARS = 500;

interface PendingOpen {
  stream: MuxStream;
  resolve: (stream: MuxStream) => void;
  reject: (error: Error) => void;
  log: (level: LogLevel, message: string) => void;
}

/**
 * One via connection. Emits `closed` (error) once, when the input ends, a frame breaks the
 * protocol, or close() is called; every stream and request still open ends with that error.
 */
export class ViaConnection extends EventEmitter implements StreamCarrier {
  private readonly reader = new FrameReader();
  private readonly streams = new Map<number, MuxStream>();
  private readonly requests = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly opens = new Map<number, PendingOpen>();
  private readonly out: FrameOutput;
  private nextId = 1;
  private endedWith: Error | undefined;
  private peerHello: ViaHello | undefined;
  private readonly helloWaiters: ((hello: ViaHello) => void)[] = [];

  constructor(
    private readonly input: Readable,
    output: Writable,
    private readonly options: ConnectionOptions,
  ) {
    super();
    this.out = new FrameOutput(output);
    input.on('data', (bytes: Buffer) => this.onBytes(bytes));
    input.on('end', () => this.close(options.lost()));
    input.on('error', () => this.close(options.lost()));
    output.on('error', () => this.close(options.lost()));
  }

  get closed(): boolean {
    return this.endedWith !== undefined;
  }

  /** Says this side's hello. */
  sayHello(hello: ViaHello): void {
    this.send(encodeJsonFrame(FrameType.hello, 0, hello));
  }

  /** The peer's hello, once it came; rejects when the connection ends first. */
  hello(): Promise<ViaHello> {
    if (this.peerHello) return Promise.resolve(this.peerHello);
    if (this.endedWith) return Promise.reject(this.endedWith);
    return new Promise((resolve, reject) => {
      this.helloWaiters.push(resolve);
      this.once('closed', reject);
    });
  }

  /** Asks the far side; resolves with its result, rejects with its error. */
  request(op: string, body: Record<string, unknown> = {}): Promise<unknown> {
    if (this.endedWith) return Promise.reject(this.endedWith);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.requests.set(id, { resolve, reject });
      this.send(encodeJsonFrame(FrameType.request, id, { ...body, op }));
    });
  }

  /** Opens a stream to the console `body` names; resolves once the far side has dialled it. */
  open(body: Record<string, unknown>, log: (level: LogLevel, message: string) => void = () => undefined): Promise<MuxStream> {
    if (this.endedWith) return Promise.reject(this.endedWith);
    const id = this.nextId++;
    const stream = this.addStream(id);
    return new Promise((resolve, reject) => {
      this.opens.set(id, { stream, resolve, reject, log });
      this.send(encodeJsonFrame(FrameType.open, id, body));
    });
  }

  /** Ends the connection: every stream and request ends with `error`. */
  close(error: Error = this.options.lost()): void {
    if (this.endedWith) return;
    this.endedWith = error;
    this.out.stop();
    for (const [, request] of this.requests) request.reject(error);
    this.requests.clear();
    for (const [, open] of this.opens) open.reject(error);
    this.opens.clear();
    for (const stream of [...this.streams.values()]) stream.destroy(error);
    this.streams.clear();
    this.input.removeAllListeners('data');
    this.input.pause();
    this.emit('closed', error);
  }

  // StreamCarrier: what the streams ask of the connection.
  wantsToSend(stream: MuxStream): void {
    this.out.wantsToSend(stream);
  }

  credit(stream: MuxStream, bytes: number): void {
    const payload = Buffer.alloc(4);
    payload.writeUInt32BE(Math.min(bytes, 0xffffffff), 0);
    this.send(encodeFrame(FrameType.credit, stream.id, payload));
  }

  ended(stream: MuxStream, error?: Error): void {
    this.streams.delete(stream.id);
    this.out.drop(stream);
    if (!this.endedWith) this.send(encodeJsonFrame(FrameType.close, stream.id, error ? { error: toWireError(error) } : {}));
  }

  private send(frame: Buffer): void {
    this.out.send(frame);
  }

  private onBytes(bytes: Buffer): void {
    try {
      for (const frame of this.reader.push(bytes)) {
        if (this.endedWith) return;
        this.onFrame(frame);
      }
    } catch (err) {
      if (!(err instanceof ViaProtocolError)) throw err;
      this.close(new VconsoleError(`the via connection broke its protocol: ${err.message}`, { cause: err }));
    }
  }

  private onFrame(frame: Frame): void {
    const far = this.options.far;
    switch (frame.type) {
      case FrameType.hello: {
        const body = jsonBody(frame);
        if (this.peerHello) return;
        this.peerHello = { protocol: Number(body.protocol), version: typeof body.version === 'string' ? body.version : 'unknown' };
        for (const waiter of this.helloWaiters.splice(0)) waiter(this.peerHello);
        return;
      }
      case FrameType.request:
        if (!far) throw new ViaProtocolError('a request came to the side that asks');
        return this.answer(frame.stream, jsonBody(frame), far);
      case FrameType.reply: {
        const body = jsonBody(frame);
        const request = this.requests.get(frame.stream);
        if (!request) return;
        this.requests.delete(frame.stream);
        if (body.ok === true) request.resolve(body.result);
        else request.reject(fromWireError(body.error));
        return;
      }
      case FrameType.open:
        if (!far) throw new ViaProtocolError('an open came to the side that opens');
        return this.accept(frame.stream, jsonBody(frame), far);
      case FrameType.opened: {
        const open = this.opens.get(frame.stream);
        if (!open) return;
        this.opens.delete(frame.stream);
        const body = frame.payload.length > 0 ? jsonBody(frame) : {};
        if (typeof body.consolePassword === 'string') withConsolePassword(open.stream, body.consolePassword);
        open.resolve(open.stream);
        return;
      }
      case FrameType.data: {
        const stream = this.streams.get(frame.stream);
        if (!stream) return; // closed here while the bytes were on their way
        if (!stream.received(frame.payload)) throw new ViaProtocolError(`stream ${frame.stream} sent beyond the window it was given`);
        return;
      }
      case FrameType.credit: {
        if (frame.payload.length !== 4) throw new ViaProtocolError('a credit frame is not 4 bytes');
        this.streams.get(frame.stream)?.granted(frame.payload.readUInt32BE(0));
        return;
      }
      case FrameType.close: {
        const body = jsonBody(frame);
        const error = body.error === undefined ? undefined : fromWireError(body.error);
        const open = this.opens.get(frame.stream);
        const stream = this.streams.get(frame.stream);
        this.streams.delete(frame.stream);
        if (open) {
          this.opens.delete(frame.stream);
          open.stream.destroy();
          open.reject(error ?? new VconsoleError('the far side closed the console before it opened'));
          return;
        }
        stream?.peerClosed(error);
        return;
      }
      case FrameType.log: {
        const body = jsonBody(frame);
        const level = (['debug', 'info', 'warn', 'error'] as const).find((l) => l === body.level) ?? 'info';
        if (typeof body.message !== 'string') return;
        // A line, not a document: what a far side says is capped before anything shows it.
        const message = body.message.slice(0, MAX_LOG_CHARS);
        const open = this.opens.get(frame.stream);
        if (open) open.log(level, message);
        else this.streams.get(frame.stream)?.emit('far-log', level, message);
        return;
      }
    }
  }

  /**
   * A stream of this connection, opened here or by the peer. Whoever takes it listens for its
   * errors; until then an error (the connection lost, a failed dial) is the open's, or what the
   * close frame carries: no crash here.
   */
  private addStream(id: number): MuxStream {
    const stream = new MuxStream(id, this);
    stream.on('error', () => undefined);
    this.streams.set(id, stream);
    return stream;
  }

  private answer(id: number, body: Record<string, unknown>, far: FarHandlers): void {
    const op = typeof body.op === 'string' ? body.op : '';
    const reply = (answer: unknown) => {
      try {
        this.send(encodeJsonFrame(FrameType.reply, id, answer));
      } catch (err) {
        // A reply over the frame limit (a listing of very many VMs) is said, not sent.
        if (!(err instanceof ViaProtocolError)) throw err;
        const error = { message: `the answer to "${op}" is over ${MAX_CONTROL_BYTES / 1024} KiB`, hint: 'narrow it down (-n, -l)' };
        this.send(encodeJsonFrame(FrameType.reply, id, { ok: false, error }));
      }
    };
    far.request(op, body).then(
      (result) => reply({ ok: true, result }),
      (err: unknown) => reply({ ok: false, error: toWireError(err) }),
    );
  }

  private accept(id: number, body: Record<string, unknown>, far: FarHandlers): void {
    if (this.streams.has(id)) throw new ViaProtocolError(`stream ${id} opened twice`);
    const stream = this.addStream(id);
    const log = (level: LogLevel, message: string) => {
      if (this.streams.has(id)) this.send(encodeJsonFrame(FrameType.log, id, { level, message }));
    };
    far.open(body, stream, log).then(
      (opened) => {
        if (!this.streams.has(id)) return;
        const password = opened ? opened.consolePassword : undefined;
        this.send(
          password === undefined ? encodeFrame(FrameType.opened, id) : encodeJsonFrame(FrameType.opened, id, { consolePassword: password }),
        );
      },
      (err: unknown) => stream.destroy(err instanceof Error ? err : new Error(String(err))),
    );
  }
}
