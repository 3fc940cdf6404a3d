import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import type tls from 'node:tls';
import type { Rect } from '../wire/geometry.js';
import { ClientEncoders } from './encoders/index.js';
import type { CopySource, Framebuffer } from '../wire/framebuffer.js';
import { PASSWORD_ANSWER_TIMEOUT_MS, PREAUTH_TIMEOUT_MS, VIEWER_STALL_TIMEOUT_MS } from '../../limits.js';
import { PixelPacker } from '../wire/pixel-values.js';
import {
  NATIVE_FORMAT,
  RfbProtocolError,
  colourMapEntries,
  encodeServerInit,
  negotiateVersion,
  parseClientMessage,
  serverSideFormat,
  type ClientMessage,
} from '../wire/rfb-wire.js';
import type { AuthGate } from './auth-backoff.js';
import { checkVncAuth, newVncChallenge } from '../wire/vnc-auth.js';
import { ClientDamage } from './damage.js';
import { ClientOutput, durationText, type OutboxKind } from './output.js';
import { ENCODING, encodeUpdate } from './update.js';
import { SECURITY_VENCRYPT, VENCRYPT_SERVER_VERSION, answerVencryptSubtype, answerVencryptVersion, startServerTls } from './vencrypt.js';
import { ClientExtensions, type ConsoleIndicators } from './extensions.js';
import { MESSAGE, PSEUDO, type DesktopSizeRequest } from '../wire/extensions.js';

export interface ClientInput {
  key(down: boolean, keysym: number): void;
  qemuKey?(down: boolean, keysym: number, keycode: number): void;
  /** `deltas`: the client sends relative motion around 0x7FFF (it was told the console is relative). */
  pointer(buttons: number, x: number, y: number, deltas?: boolean): void;
  clipboard(text: string): void;
  /** Resolves with the ExtendedDesktopSize status; absent, every SetDesktopSize is refused ("prohibited"). */
  setDesktopSize?(request: DesktopSizeRequest): Promise<number>;
  /**
   * Undefined while the console takes input; else resolves once it does again (its write buffer
   * drained, or it went away). Meanwhile this client's connection is not read: the backpressure
   * reaches the client instead of a queue growing here.
   */
  roomForInput?(): Promise<void> | undefined;
}

export interface RfbServerOptions {
  framebuffer: Framebuffer;
  /** Offer VNC Authentication with this password instead of None. */
  password?: string;
  /**
   * Offer VeNCrypt X509Vnc instead: TLS with this context's certificate, then the VNC
   * authentication with `password` (required) inside it. Plain VNC authentication is offered
   * beside it only with `alsoPlainVncAuth`.
   */
  tls?: { context: tls.SecureContext; alsoPlainVncAuth?: boolean };
  /** Input from this client is dropped. */
  viewOnly?: boolean;
  input: ClientInput;
  /** A client gave a wrong password (the caller logs it with the peer address). */
  onAuthFailure?(): void;
  /** Back-off for this client's address: wrong answers wait, held-back addresses are refused unchecked. */
  authGate?: AuthGate;
  /**
   * Handshake deadline (default PREAUTH_TIMEOUT_MS), the password answer's once the challenge
   * is out (default PASSWORD_ANSWER_TIMEOUT_MS) and stall bound (default VIEWER_STALL_TIMEOUT_MS), for tests.
   */
  preauthTimeoutMs?: number;
  passwordAnswerTimeoutMs?: number;
  /**
   * Runs once the client is through authentication, and its ServerInit waits for it (the
   * framebuffer's size is read after): a replay decodes its recording only for a client that
   * gave the password. Rejecting drops the client.
   */
  beforeServerInit?(): Promise<void>;
  stallTimeoutMs?: number;
  /** The client's SetEncodings chose how its pictures go out (`tight (JPEG quality 8, compress level 2), CopyRect`), for the log. */
  onEncodings?(choice: string): void;
  /** The console's LED state and pointer mode, told to a client that asks for them. */
  indicators?(): ConsoleIndicators;
}

/** Why this side ended a client's connection, as the end of `viewer from ADDRESS disconnected: ...`. */
export class ClientDroppedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClientDroppedError';
  }
}

export interface ServedClient extends EventEmitter<{ close: [Error | undefined] }> {
  /** Sends ServerCutText to this client (clipboard from the VM). */
  clipboard(text: string): void;
  bell(): void;
  /** QEMU's LED state, for a client that asked for it. */
  ledState(state: number): void;
  /** The console's pointer mode, for a client that asked for QEMU's pointer motion change. */
  pointerMode(absolute: boolean): void;
  close(): void;
}

/** Answers held behind an update one client may have before it is dropped (a client that never reads). */
const MAX_HELD_ANSWERS = 64;

/** Clipboard text from a client above this size is dropped, not buffered. */
export const MAX_CLIENT_CUT_TEXT = 1 << 20;

const SECURITY_NONE = 1;
const SECURITY_VNC_AUTH = 2;

/** One client's RFB connection on a shared Framebuffer: handshake, then messages parsed as they arrive. */
class ClientConnection extends EventEmitter<{ close: [Error | undefined] }> implements ServedClient {
  private buffer: Buffer = Buffer.alloc(0);
  private phase:
    'version' | 'security' | 'vencryptVersion' | 'vencryptSubtype' | 'tls' | 'auth' | 'held' | 'clientInit' | 'preparing' | 'normal' =
    'version';
  /** The client's connection; after a VeNCrypt handshake, the TLS socket over `raw`. */
  private stream: Duplex;
  /** beforeServerInit has resolved (or there is none): ServerInit may go out. */
  private prepared = false;
  /** Holds a wrong password's answer back (see AuthBackoff). */
  private holdTimer: NodeJS.Timeout | undefined;
  private version: '3.3' | '3.7' | '3.8' = '3.8';
  /** The security types offered, in the server's order of preference. */
  private readonly securityTypes: number[];
  private challenge: Buffer | undefined;
  private packer = new PixelPacker(NATIVE_FORMAT);
  private wants = { cursor: false, desktopSize: false, qemuKey: false };
  /** ClientCutText payload still to drop (too big, or extended clipboard). */
  private skipping = 0;
  private readonly pending: ClientDamage;
  /** An update is being encoded or waits for the stream to drain; damage meanwhile is coalesced. */
  private busy = false;
  /** Messages written while busy go out after the update (see ClientOutput). */
  private output: ClientOutput;
  private handshakeTimer: NodeJS.Timeout | undefined;
  /** A bell went out in this turn of the event loop. */
  private rang = false;
  /** The encoding its SetEncodings chose, and each encoder's state (zlib streams) for this connection. */
  private readonly encoders = new ClientEncoders();
  private readonly extensions: ClientExtensions;
  /** Fence answers and the like that go out behind the update being encoded. */
  private afterUpdate: Buffer[] = [];
  private closed = false;
  /** The refusal a failing handshake sends before the connection closes. */
  private farewell: Buffer | undefined;
  private readonly onDamage = (rect: Rect, from?: CopySource) => {
    // A copy while an update is encoded may already show in bands read after it: pixels then.
    if (from && !this.busy) this.pending.copied(rect, from);
    else this.pending.damage(rect);
    this.sendUpdateIfDue();
  };
  private readonly onResize = (width: number, height: number) => {
    this.pending.resized(width, height);
    this.sendUpdateIfDue();
  };
  private readonly onCursor = () => {
    this.pending.cursorChanged = true;
    this.sendUpdateIfDue();
  };

  constructor(
    private readonly raw: Duplex,
    private readonly options: RfbServerOptions,
  ) {
    super();
    if (options.tls && options.password === undefined) throw new Error('VeNCrypt X509Vnc needs a password');
    this.securityTypes = options.tls
      ? [SECURITY_VENCRYPT, ...(options.tls.alsoPlainVncAuth ? [SECURITY_VNC_AUTH] : [])]
      : [options.password === undefined ? SECURITY_NONE : SECURITY_VNC_AUTH];
    this.pending = new ClientDamage(options.framebuffer.width, options.framebuffer.height);
    this.extensions = new ClientExtensions({
      write: (message) => this.writeMessage(message),
      writeAfterUpdate: (message) => this.writeAfterUpdate(message),
      size: () => ({ width: options.framebuffer.width, height: options.framebuffer.height }),
      updateDue: () => this.sendUpdateIfDue(),
      setDesktopSize: options.input.setDesktopSize?.bind(options.input),
      clipboard: (text) => options.input.clipboard(text),
      indicators: options.indicators,
      viewOnly: options.viewOnly ?? false,
      maxClipboardText: MAX_CLIENT_CUT_TEXT,
    });
    this.stream = raw;
    this.output = this.listen(raw);
    this.handshakeDeadline(options.preauthTimeoutMs ?? PREAUTH_TIMEOUT_MS, 'it finished no VNC handshake');
    raw.write('RFB 003.008\n');
  }

  /** Reads `stream` from now on (the raw connection, then its TLS socket) and writes updates to it. */
  private listen(stream: Duplex): ClientOutput {
    stream.on('data', (chunk: Buffer) => this.receive(chunk));
    stream.on('error', (err) => this.finish(err));
    stream.on('end', () => stream.end());
    stream.on('close', () => this.finish(undefined));
    const stallMs = this.options.stallTimeoutMs ?? VIEWER_STALL_TIMEOUT_MS;
    return new ClientOutput(stream, stallMs, () => {
      this.finish(new ClientDroppedError(`it read nothing for ${durationText(stallMs)} while its screen changed`));
    });
  }

  /** The sub-type was accepted: TLS over the connection, then VNC authentication inside it. */
  private startTls(early: Buffer, context: tls.SecureContext): void {
    this.phase = 'tls';
    this.raw.removeAllListeners('end');
    const secure = startServerTls(this.raw, early, context);
    secure.on('error', (err: Error) => this.finish(new RfbProtocolError(`TLS: ${err.message}`)));
    secure.once('secure', () => {
      if (this.closed) return;
      this.stream = secure;
      this.output = this.listen(secure);
      this.afterSecurityType(SECURITY_VNC_AUTH);
    });
    this.stream = secure;
  }

  /** From now on the handshake must end within `ms`, else the client is dropped with `what` and the wait. */
  private handshakeDeadline(ms: number, what: string): void {
    clearTimeout(this.handshakeTimer);
    this.handshakeTimer = setTimeout(() => this.finish(new ClientDroppedError(`${what} within ${durationText(ms)}`)), ms);
  }

  clipboard(text: string): void {
    if (this.output.behind || this.phase !== 'normal') return;
    if (this.extensions.offerClipboard(text)) return;
    const bytes = Buffer.from(text, 'latin1');
    const head = Buffer.alloc(8);
    head.writeUInt8(3, 0);
    head.writeUInt32BE(bytes.length, 4);
    this.send(Buffer.concat([head, bytes]), 'clipboard');
  }

  /** At most one bell per turn of the event loop: a console's burst of them is one beep. */
  bell(): void {
    if (this.rang || this.output.behind) return;
    this.rang = true;
    setImmediate(() => (this.rang = false));
    this.send(BELL, 'bell');
  }

  ledState(state: number): void {
    if (this.phase === 'normal' && !this.closed) this.extensions.ledState(state);
  }

  pointerMode(absolute: boolean): void {
    if (this.phase === 'normal' && !this.closed) this.extensions.pointerMode(absolute);
  }

  close(): void {
    this.finish(undefined);
  }

  /** A message that may go out at any point between updates (an unasked pseudo-update, an extension's answer). */
  private writeMessage(message: Buffer): void {
    if (!this.closed && this.phase === 'normal') this.output.write(message);
  }

  private writeAfterUpdate(message: Buffer): void {
    if (!this.busy) return this.writeMessage(message);
    if (this.afterUpdate.length >= MAX_HELD_ANSWERS)
      throw new RfbProtocolError(`more than ${MAX_HELD_ANSWERS} answers held behind one update`);
    this.afterUpdate.push(message);
  }

  private finish(err: Error | undefined): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.holdTimer);
    const fb = this.options.framebuffer;
    fb.off('damage', this.onDamage);
    fb.off('resize', this.onResize);
    fb.off('cursor', this.onCursor);
    clearTimeout(this.handshakeTimer);
    this.output.close();
    this.encoders.close();
    this.extensions.close();
    this.afterUpdate = [];
    // A refusal must reach the client: end gracefully, then let go of the socket.
    const destroy = () => {
      this.stream.destroy();
      this.raw.destroy();
    };
    if (this.farewell && !this.stream.destroyed) this.stream.end(this.farewell, destroy);
    else destroy();
    this.emit('close', err);
  }

  /** Writes now, or after the update being encoded; nothing before the handshake's end. */
  private send(message: Buffer, kind: OutboxKind): void {
    if (this.closed || this.phase !== 'normal') return;
    this.output.send(message, kind, this.busy);
  }

  private receive(chunk: Buffer): void {
    if (this.closed) return;
    try {
      this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
      let offset = this.skipCutText(0);
      for (let used = this.step(offset); used > 0 && !this.closed; used = this.step(offset)) {
        offset = this.skipCutText(offset + used);
      }
      this.buffer = this.buffer.subarray(offset);
      this.holdWhileConsoleIsFull();
    } catch (err) {
      // A client that breaks the protocol loses its own connection, nobody else's.
      const reason = err instanceof Error ? err.message : String(err);
      this.finish(new RfbProtocolError(`RFB viewer: ${reason}; the viewer was disconnected`));
    }
  }

  /**
   * Stops reading this client while the console does not take its input (keys of a stalled
   * console), or while the client does not take what its own messages asked for (a client that
   * sends requests and never reads would otherwise queue answers without end).
   */
  private holdWhileConsoleIsFull(): void {
    const room = this.phase === 'normal' ? this.options.input.roomForInput?.() : undefined;
    const own = this.stream.writableNeedDrain ? new Promise<void>((resolve) => this.stream.once('drain', resolve)) : undefined;
    if (!room && !own) return;
    this.stream.pause();
    void Promise.all([room, own]).then(() => {
      if (!this.closed) this.stream.resume();
    });
  }

  private skipCutText(offset: number): number {
    const dropped = Math.min(this.skipping, this.buffer.length - offset);
    this.skipping -= dropped;
    return offset + dropped;
  }

  /** Handles one message at `offset`; returns the bytes it used, 0 when more must arrive. */
  private step(offset: number): number {
    const available = this.buffer.length - offset;
    const at = this.buffer.subarray(offset);
    switch (this.phase) {
      case 'version':
        if (available < 12) return 0;
        this.version = negotiateVersion(at.subarray(0, 12));
        this.refuseWhileHeld('before');
        if (this.version === '3.3') {
          // RFB 3.3 has the server pick the type, and VeNCrypt is not one a 3.3 client knows.
          const legacy = this.securityTypes.find((type) => type !== SECURITY_VENCRYPT);
          if (legacy === undefined) {
            const reason = 'this listener speaks VeNCrypt (TLS), which an RFB 3.3 viewer does not';
            this.farewell = Buffer.concat([u32(0), lengthPrefixed(reason)]);
            throw new RfbProtocolError(reason);
          }
          this.stream.write(u32(legacy));
          this.afterSecurityType(legacy);
        } else {
          this.stream.write(Buffer.from([this.securityTypes.length, ...this.securityTypes]));
          this.phase = 'security';
        }
        return 12;
      case 'security': {
        if (available < 1) return 0;
        const chosen = at[0];
        if (!this.securityTypes.includes(chosen)) {
          const reason = `security type ${chosen} is not offered (only ${this.securityTypes.join(', ')})`;
          this.farewell = this.version === '3.8' ? Buffer.concat([u32(1), lengthPrefixed(reason)]) : undefined;
          throw new RfbProtocolError(reason);
        }
        if (chosen === SECURITY_VENCRYPT) {
          this.stream.write(VENCRYPT_SERVER_VERSION);
          this.phase = 'vencryptVersion';
        } else this.afterSecurityType(chosen);
        return 1;
      }
      case 'vencryptVersion': {
        if (available < 2) return 0;
        const { reply, refusal } = answerVencryptVersion(at);
        if (refusal !== undefined) {
          this.farewell = reply;
          throw new RfbProtocolError(refusal);
        }
        this.stream.write(reply);
        this.phase = 'vencryptSubtype';
        return 2;
      }
      case 'vencryptSubtype': {
        if (available < 4) return 0;
        const { reply, refusal } = answerVencryptSubtype(at);
        if (refusal !== undefined || !this.options.tls) {
          this.farewell = reply;
          throw new RfbProtocolError(refusal ?? 'no TLS');
        }
        this.stream.write(reply);
        this.startTls(Buffer.from(at.subarray(4)), this.options.tls.context);
        return available;
      }
      case 'tls':
        return 0; // the TLS socket reads the connection now
      case 'auth': {
        if (available < 16) return 0;
        const challenge = this.challenge ?? Buffer.alloc(16);
        // An answer from a held-back address is not checked: a right guess must look like a wrong one.
        this.refuseWhileHeld('after');
        if (!checkVncAuth({ challenge, response: at.subarray(0, 16), password: this.options.password ?? '' })) {
          this.farewell = this.version === '3.8' ? Buffer.concat([u32(1), lengthPrefixed('authentication failed')]) : u32(1);
          this.options.onAuthFailure?.();
          const holdMs = this.options.authGate?.failed() ?? 0;
          if (holdMs <= 0) throw new RfbProtocolError('wrong VNC password');
          this.phase = 'held';
          this.holdTimer = setTimeout(() => this.finish(new RfbProtocolError('wrong VNC password')), holdMs);
          return available;
        }
        this.options.authGate?.succeeded();
        this.stream.write(u32(0));
        this.enterClientInit();
        return 16;
      }
      case 'held':
        return available; // nothing more is read from a client whose wrong answer is being held
      case 'preparing':
        return 0; // its ClientInit waits for beforeServerInit
      case 'clientInit': {
        if (available < 1) return 0;
        if (!this.prepared) {
          this.phase = 'preparing';
          return 0;
        }
        // The shared flag asks us to drop other clients; every client of the hub shares instead.
        const fb = this.options.framebuffer;
        this.stream.write(encodeServerInit(fb.width, fb.height, fb.name));
        this.pending.told(fb.width, fb.height);
        this.phase = 'normal';
        clearTimeout(this.handshakeTimer);
        fb.on('damage', this.onDamage);
        fb.on('resize', this.onResize);
        fb.on('cursor', this.onCursor);
        return 1;
      }
      case 'normal':
        return this.normalMessage(at);
    }
  }

  /**
   * Refuses at once, with the wait in the reason, when this client's address is held back
   * after wrong passwords: before the security types (no challenge is spent) or after its
   * answer (which is then not checked).
   */
  private refuseWhileHeld(when: 'before' | 'after'): void {
    if (this.options.password === undefined) return;
    const waitMs = this.options.authGate?.wait() ?? 0;
    if (waitMs <= 0) return;
    const reason = `too many wrong passwords from this address: try again in ${Math.ceil(waitMs / 1000)} s`;
    if (when === 'before') this.farewell = Buffer.concat([this.version === '3.3' ? u32(0) : Buffer.from([0]), lengthPrefixed(reason)]);
    else this.farewell = this.version === '3.8' ? Buffer.concat([u32(1), lengthPrefixed(reason)]) : u32(1);
    throw new RfbProtocolError(reason);
  }

  private afterSecurityType(type: number): void {
    if (type === SECURITY_VNC_AUTH) {
      this.challenge = newVncChallenge();
      this.stream.write(this.challenge);
      this.phase = 'auth';
      // The client now asks its user for the password: a person's typing gets longer than a silent socket.
      this.handshakeDeadline(this.options.passwordAnswerTimeoutMs ?? PASSWORD_ANSWER_TIMEOUT_MS, 'it answered no VNC password');
      return;
    }
    if (this.version === '3.8') this.stream.write(u32(0));
    this.enterClientInit();
  }

  /** Authenticated: what beforeServerInit prepares starts now, while the ClientInit arrives. */
  private enterClientInit(): void {
    this.phase = 'clientInit';
    const prepare = this.options.beforeServerInit;
    if (!prepare) {
      this.prepared = true;
      return;
    }
    prepare().then(
      () => {
        this.prepared = true;
        if (this.closed || this.phase !== 'preparing') return;
        this.phase = 'clientInit';
        this.receive(Buffer.alloc(0));
      },
      (err: unknown) => this.finish(err instanceof Error ? err : new Error(String(err))),
    );
  }

  /** One message of the normal phase: the bytes used, 0 while it is incomplete. */
  private normalMessage(at: Buffer): number {
    const used = this.extensions.message(at) ?? this.coreMessage(at);
    if (used > 0 && at[0] !== MESSAGE.fence) this.extensions.handled();
    return used;
  }

  private coreMessage(at: Buffer): number {
    if (at.length >= 1 && at[0] === 255) {
      // QEMU client message: only subtype 0, the Extended Key Event, is understood.
      if (at.length < 2) return 0;
      if (at[1] !== 0) throw new RfbProtocolError(`unknown QEMU client message subtype ${at[1]}`);
      if (at.length < 12) return 0;
      if (!this.options.viewOnly) {
        const down = at.readUInt16BE(2) !== 0;
        const keysym = at.readUInt32BE(4);
        const keycode = at.readUInt32BE(8);
        if (this.options.input.qemuKey) this.options.input.qemuKey(down, keysym, keycode);
        else this.options.input.key(down, keysym);
      }
      return 12;
    }
    const parsed = parseClientMessage(at, 0);
    if (!parsed) return 0;
    if (parsed.message.type !== 'cutText') {
      this.handle(parsed.message);
      return parsed.size;
    }
    const length = parsed.message.length;
    // Text past the limit is dropped as it arrives, in either format; the client stays.
    if (length > MAX_CLIENT_CUT_TEXT) {
      this.skipping = length;
      return parsed.size;
    }
    if (at.length < parsed.size + length) return 0;
    // A negative length is the extended clipboard format.
    if (at.readInt32BE(4) < 0) this.extensions.clipboardMessage(at.subarray(8, 8 + length));
    else if (!this.options.viewOnly) this.options.input.clipboard(at.subarray(8, 8 + length).toString('latin1'));
    return parsed.size + length;
  }

  private handle(message: ClientMessage): void {
    const input = this.options.viewOnly ? undefined : this.options.input;
    switch (message.type) {
      case 'setPixelFormat':
        this.packer = new PixelPacker(serverSideFormat(message.format));
        if (!message.format.trueColour) this.send(colourMapEntries(), 'colourMap');
        break;
      case 'setEncodings': {
        const list = message.encodings;
        if (this.encoders.choose(list)) this.options.onEncodings?.(this.encoders.description);
        const qemuKey = list.includes(ENCODING.qemuExtendedKey) && this.options.input.qemuKey !== undefined;
        this.pending.qemuKeyAckDue = qemuKey && !this.wants.qemuKey;
        const desktopSize = list.includes(ENCODING.desktopSize) || list.includes(PSEUDO.extendedDesktopSize);
        this.wants = { cursor: list.includes(ENCODING.cursor), desktopSize, qemuKey };
        this.pending.cursorChanged = this.wants.cursor && this.options.framebuffer.cursor !== undefined;
        this.extensions.setEncodings(list);
        break;
      }
      case 'updateRequest':
        this.pending.request(message.rect, message.incremental);
        this.sendUpdateIfDue();
        break;
      case 'key':
        input?.key(message.down, message.keysym);
        break;
      case 'pointer':
        input?.pointer(message.buttons, message.x, message.y, this.extensions.sendsPointerDeltas);
        break;
      case 'cutText':
        break; // handled in normalMessage, which has the payload
    }
  }

  /**
   * Answers the pending request when something it covers changed. One update at a time, and
   * none while the stream's buffer is full: a client that stops reading costs one update of
   * memory plus its (bounded) damage list.
   */
  private sendUpdateIfDue(): void {
    if (this.busy || this.closed || this.phase !== 'normal') return;
    // Continuous updates: the area stands requested all the time.
    const continuous = this.extensions.continuousArea();
    if (continuous) this.pending.request(continuous, true);
    const plan = this.pending.plan(this.options.framebuffer, { ...this.wants, copyRect: this.encoders.copyRect });
    if (!plan) return;
    if (plan.size && this.extensions.extendedDesktopSize) plan.size.extended = true;
    this.busy = true;
    const cancelled = () => this.closed;
    encodeUpdate(plan, this.options.framebuffer, this.packer, this.encoders, { cancelled }).then(
      (parts) => {
        if (this.closed) return;
        // Corked, the parts leave in one writev; the last write's answer covers all that is buffered.
        this.stream.cork();
        let drained = true;
        for (const part of parts) drained = this.output.write(part);
        this.stream.uncork();
        const resume = () => {
          this.busy = false;
          this.output.release();
          for (const message of this.afterUpdate.splice(0)) this.writeMessage(message);
          this.sendUpdateIfDue();
        };
        if (drained) resume();
        else this.stream.once('drain', resume);
      },
      (err: Error) => this.finish(err),
    );
  }
}

const BELL = Buffer.from([2]);

function u32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value);
  return out;
}

function lengthPrefixed(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  return Buffer.concat([u32(bytes.length), bytes]);
}

/** Serves one client on `stream` from `options.framebuffer`; every client of a framebuffer shares it. */
export function serveClient(stream: Duplex, options: RfbServerOptions): ServedClient {
  return new ClientConnection(stream, options);
}
