/**
 * One client's RFB handshake on the server side: the version, the security types (None, VNC
 * Authentication, VeNCrypt X509Vnc with TLS), the password with its back-off, then ClientInit
 * and ServerInit. Each refusal leaves its reason in `farewell` for the connection to send.
 */
import type { Duplex } from 'node:stream';
import type tls from 'node:tls';
import { PASSWORD_ANSWER_TIMEOUT_MS, PRE_LOGIN_SILENT_MS } from '../../limits.js';
import { RfbProtocolError, encodeServerInit, negotiateVersion } from '../wire/rfb-wire.js';
import { checkVncAuth, newVncChallenge } from '../wire/vnc-auth.js';
import type { LoginSlot } from './login-slots.js';
import { ClientDroppedError, type RfbServerOptions } from './served-client.js';
import { durationText } from './output.js';
import { SECURITY_VENCRYPT, VENCRYPT_SERVER_VERSION, answerVencryptSubtype, answerVencryptVersion } from './vencrypt.js';

const SECURITY_NONE = 1;
const SECURITY_VNC_AUTH = 2;

type Phase =
  'version' | 'security' | 'vencryptVersion' | 'vencryptSubtype' | 'tls' | 'auth' | 'held' | 'clientInit' | 'preparing' | 'normal';

/** What the handshake needs of its connection. */
interface HandshakeHost {
  /** The client's connection; after a VeNCrypt handshake, the TLS socket over it. */
  readonly stream: Duplex;
  readonly closed: boolean;
  /** The sub-type was accepted: TLS over the connection (`early`: bytes already read past the sub-type). */
  startTls(early: Buffer, context: tls.SecureContext): void;
  finish(err: Error | undefined): void;
  /** Reads what arrived meanwhile again (its ClientInit, once beforeServerInit resolved). */
  reread(): void;
  /** ServerInit went out: the normal phase starts. */
  begin(): void;
}

export class ServerHandshake {
  private phase: Phase = 'version';
  private version: '3.3' | '3.7' | '3.8' = '3.8';
  /** The security types offered, in the server's order of preference. */
  private readonly securityTypes: number[];
  private challenge: Buffer | undefined;
  /** beforeServerInit has resolved (or there is none): ServerInit may go out. */
  private prepared = false;
  /** Holds a wrong password's answer back (see AuthBackoff). */
  private holdTimer: NodeJS.Timeout | undefined;
  private deadlineTimer: NodeJS.Timeout | undefined;
  /** Closes a connection asked for a password that says nothing at all (PRE_LOGIN_SILENT_MS). */
  private silentTimer: NodeJS.Timeout | undefined;
  /** Its place among the connections not logged in, while a password is asked of it. */
  private slot: LoginSlot | undefined;
  /** The refusal a failing handshake sends before the connection closes. */
  farewell: Buffer | undefined;

  constructor(
    private readonly options: RfbServerOptions,
    private readonly host: HandshakeHost,
  ) {
    if (options.tls && options.password === undefined) throw new Error('VeNCrypt X509Vnc needs a password');
    this.securityTypes = options.tls
      ? [SECURITY_VENCRYPT, ...(options.tls.alsoPlainVncAuth ? [SECURITY_VNC_AUTH] : [])]
      : [options.password === undefined ? SECURITY_NONE : SECURITY_VNC_AUTH];
  }

  /** The handshake is over: the client's messages are RFB's normal ones. */
  get done(): boolean {
    return this.phase === 'normal';
  }

  /** Sends the server's version; the handshake must end within `ms`. */
  start(ms: number): void {
    this.deadline(ms, 'it finished no VNC handshake');
    const gate = this.options.authGate;
    if (this.options.password !== undefined && gate) {
      // Dropped among many alike (a flood of sockets): a debug line, not a warning each.
      const routine = (why: string) => this.host.finish(new ClientDroppedError(why, { routine: true }));
      this.slot = gate.enter(() => routine('newer connections from its address needed its place among those not logged in'));
      const silentMs = this.options.silentTimeoutMs ?? PRE_LOGIN_SILENT_MS;
      // Judged once the bytes already here are read: a process busy past the wait runs its due
      // timers before it reads its sockets, and a viewer that answered at once is not silent.
      const silent = setTimeout(
        () =>
          setImmediate(() => {
            if (this.silentTimer === silent) routine(`it sent nothing within ${durationText(silentMs)}`);
          }),
        silentMs,
      );
      this.silentTimer = silent;
    }
    this.host.stream.write('RFB 003.008\n');
  }

  /** TLS is up: VNC authentication inside it. */
  secured(): void {
    this.afterSecurityType(SECURITY_VNC_AUTH);
  }

  close(): void {
    clearTimeout(this.holdTimer);
    clearTimeout(this.deadlineTimer);
    clearTimeout(this.silentTimer);
    this.silentTimer = undefined;
    this.slot?.leave();
  }

  /** From now on the handshake must end within `ms`, else the client is dropped with `what` and the wait. */
  private deadline(ms: number, what: string): void {
    clearTimeout(this.deadlineTimer);
    this.deadlineTimer = setTimeout(() => this.host.finish(new ClientDroppedError(`${what} within ${durationText(ms)}`)), ms);
  }

  /** Handles the handshake's next message at the start of `at`; returns the bytes it used, 0 when more must arrive. */
  step(at: Buffer): number {
    const available = at.length;
    const stream = this.host.stream;
    if (available > 0 && this.silentTimer) {
      clearTimeout(this.silentTimer);
      this.silentTimer = undefined;
      this.slot?.progressed('spoke');
    }
    switch (this.phase) {
      case 'version':
        return this.onVersion(at);
      case 'security': {
        if (available < 1) return 0;
        const chosen = at[0];
        if (!this.securityTypes.includes(chosen)) {
          const reason = `security type ${chosen} is not offered (only ${this.securityTypes.join(', ')})`;
          this.farewell = this.version === '3.8' ? Buffer.concat([u32(1), lengthPrefixed(reason)]) : undefined;
          throw new RfbProtocolError(reason);
        }
        if (chosen === SECURITY_VENCRYPT) {
          stream.write(VENCRYPT_SERVER_VERSION);
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
        stream.write(reply);
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
        stream.write(reply);
        this.phase = 'tls';
        this.host.startTls(Buffer.from(at.subarray(4)), this.options.tls.context);
        return available;
      }
      case 'tls':
        return 0; // the TLS socket reads the connection now
      case 'auth':
        return this.onAuth(at);
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
        stream.write(encodeServerInit(fb.width, fb.height, fb.name));
        this.phase = 'normal';
        clearTimeout(this.deadlineTimer);
        this.host.begin();
        return 1;
      }
      case 'normal':
        return 0; // the connection reads these
    }
  }

  /** The client's ProtocolVersion: RFB 3.3 is told the security type, later versions get the list. */
  private onVersion(at: Buffer): number {
    if (at.length < 12) return 0;
    const stream = this.host.stream;
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
      stream.write(u32(legacy));
      this.afterSecurityType(legacy);
    } else {
      stream.write(Buffer.from([this.securityTypes.length, ...this.securityTypes]));
      this.phase = 'security';
    }
    return 12;
  }

  /** The answer to the VNC authentication challenge, checked only within the address's and the command's guesses. */
  private onAuth(at: Buffer): number {
    const available = at.length;
    if (available < 16) return 0;
    const challenge = this.challenge ?? Buffer.alloc(16);
    // An answer from a held-back address is not checked: a right guess must look like a wrong one.
    this.refuseWhileHeld('after');
    // Nor one beyond the command's guesses (many addresses guessing): it spends one, or is refused.
    if (this.options.authGate?.spend() === false) this.refuseWhileHeld('after', true);
    if (!checkVncAuth({ challenge, response: at.subarray(0, 16), password: this.options.password ?? '' })) {
      this.farewell = this.version === '3.8' ? Buffer.concat([u32(1), lengthPrefixed('authentication failed')]) : u32(1);
      this.options.onAuthFailure?.();
      const holdMs = this.options.authGate?.failed() ?? 0;
      if (holdMs <= 0) throw new RfbProtocolError('wrong VNC password');
      this.phase = 'held';
      this.holdTimer = setTimeout(() => this.host.finish(new RfbProtocolError('wrong VNC password')), holdMs);
      return available;
    }
    this.options.authGate?.succeeded();
    this.slot?.leave();
    this.host.stream.write(u32(0));
    this.enterClientInit();
    return 16;
  }

  /**
   * Refuses at once, with the wait in the reason, when this client's address is held back
   * after wrong passwords or the command's guesses are used up (`spent`: its answer found none
   * left): before the security types (no challenge is spent) or after its answer (which is then
   * not checked).
   */
  private refuseWhileHeld(when: 'before' | 'after', spent = false): void {
    if (this.options.password === undefined) return;
    const refusal = this.options.authGate?.refusal();
    if (refusal === undefined && !spent) return;
    const reason = refusal ?? 'too many password guesses at this listener: try again in 1 s';
    if (when === 'before') this.farewell = Buffer.concat([this.version === '3.3' ? u32(0) : Buffer.from([0]), lengthPrefixed(reason)]);
    else this.farewell = this.version === '3.8' ? Buffer.concat([u32(1), lengthPrefixed(reason)]) : u32(1);
    throw new RfbProtocolError(reason);
  }

  private afterSecurityType(type: number): void {
    if (type === SECURITY_VNC_AUTH) {
      this.challenge = newVncChallenge();
      this.host.stream.write(this.challenge);
      this.phase = 'auth';
      this.slot?.progressed('asked');
      // The client now asks its user for the password: a person's typing gets longer than a silent socket.
      this.deadline(this.options.passwordAnswerTimeoutMs ?? PASSWORD_ANSWER_TIMEOUT_MS, 'it answered no VNC password');
      return;
    }
    if (this.version === '3.8') this.host.stream.write(u32(0));
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
        if (this.host.closed || this.phase !== 'preparing') return;
        this.phase = 'clientInit';
        this.host.reread();
      },
      (err: unknown) => this.host.finish(err instanceof Error ? err : new Error(String(err))),
    );
  }
}

function u32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value);
  return out;
}

function lengthPrefixed(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  return Buffer.concat([u32(bytes.length), bytes]);
}
