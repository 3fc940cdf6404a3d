import { timingSafeEqual } from 'node:crypto';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { consoleKind } from '../console-kinds/index.js';
import { describeError } from '../errors.js';
import { PASSWORD_ANSWER_TIMEOUT_MS, PREAUTH_TIMEOUT_MS } from '../limits.js';
import { type DialContext, type UpstreamSource, WrappedSource } from '../proxy/index.js';
import type { AuthBackoff, AuthGate } from '../rfb/server/auth-backoff.js';
import type { LoginSlot } from '../rfb/server/login-slots.js';
import { duplexPair } from '../streams/duplex-pair.js';

/** The prompt a client sees once TLS is up; what it types up to Enter is the password. */
export const PASSWORD_PROMPT = 'vconsole password: ';
/** A line longer than this is no password of a listener (they have 6 to 8 characters). */
const MAX_PASSWORD_LINE = 256;

interface SerialGateOptions {
  context: tls.SecureContext;
  password: string;
  /** The one back-off of the command: a wrong line waits, and so does its address meanwhile. */
  authBackoff: AuthBackoff;
  /** Deadlines, for tests: the TLS handshake's and the password line's. */
  handshakeMs?: number;
  answerMs?: number;
}

/**
 * A serial console on a listener beyond loopback: each client speaks TLS with the listener's
 * certificate (what `openssl s_client` or `socat OPENSSL:` do), is asked for the listener's
 * password on one line, and only then is the console dialled and its bytes relayed, both ways,
 * inside TLS. A serial line has no authentication of its own (on `demo:shell#serial` it is a
 * root shell), and a bare TLS port would hand it to whoever connects. Wrong lines are slowed
 * per address by the same back-off as VNC passwords. Other kinds pass through.
 */
export class SerialTlsGate extends WrappedSource<Record<never, never>> {
  /** Each client's TLS while it is open: ended with a close_notify when the session closes. */
  private readonly clients = new Set<tls.TLSSocket>();

  constructor(
    inner: UpstreamSource,
    private readonly options: SerialGateOptions,
  ) {
    super(inner);
  }

  dial(context: DialContext): Promise<Duplex> {
    // Another vconsole of this user, through the user-only socket, is no stranger on the network.
    if (context.joined || consoleKind(this.inner.facts.consoleType)?.sharing !== 'serial-line') return this.inner.dial(context);
    const [clientEnd, relayEnd] = duplexPair();
    const secure = new tls.TLSSocket(clientEnd, { isServer: true, secureContext: this.options.context });
    this.clients.add(secure);
    secure.once('close', () => this.clients.delete(secure));
    const gate = this.options.authBackoff.gate(context.peer, (message) => context.log('warn', message.replace('VNC password', 'password')));
    // One of the connections not logged in: a newer one may close it (LoginSlots), as the hub's.
    const slot = gate.enter(() => drop('newer connections from its address needed its place among those not logged in'));
    secure.once('close', () => slot.leave());
    let timer = setTimeout(() => drop('it finished no TLS handshake in time'), this.options.handshakeMs ?? PREAUTH_TIMEOUT_MS);
    const drop = (reason: string) => {
      clearTimeout(timer);
      context.log('debug', `serial client${context.peer ? ` from ${context.peer}` : ''} dropped: ${reason}`);
      secure.destroy();
      clientEnd.destroy();
    };
    secure.on('error', (err: Error) => drop(`TLS: ${err.message}`));
    secure.once('secure', () => {
      clearTimeout(timer);
      const refusal = gate.refusal();
      if (refusal !== undefined) {
        secure.end(`${refusal}\r\n`);
        return;
      }
      slot.progressed('asked');
      secure.write(PASSWORD_PROMPT);
      timer = setTimeout(() => drop('it gave no password in time'), this.options.answerMs ?? PASSWORD_ANSWER_TIMEOUT_MS);
      let line = Buffer.alloc(0);
      const onData = (chunk: Buffer) => {
        line = Buffer.concat([line, chunk]);
        const end = line.findIndex((byte) => byte === 0x0a || byte === 0x0d);
        if (end < 0) {
          if (line.length > MAX_PASSWORD_LINE) drop('its password line was too long');
          return;
        }
        secure.off('data', onData);
        secure.pause();
        clearTimeout(timer);
        // What came after the line's end (the LF of a CR LF aside) is the console's.
        const rest = line.subarray(end + (line[end] === 0x0d && line[end + 1] === 0x0a ? 2 : 1));
        this.answered(line.subarray(0, end), rest, secure, { gate, slot }, context);
      };
      secure.on('data', onData);
    });
    return Promise.resolve(relayEnd);
  }

  private answered(
    answer: Buffer,
    rest: Buffer,
    secure: tls.TLSSocket,
    login: { gate: AuthGate; slot: LoginSlot },
    context: DialContext,
  ): void {
    const { gate, slot } = login;
    if (!gate.spend()) {
      // A right guess from a held-back address (or beyond the guesses) must look like a wrong one: not checked.
      secure.end(`${gate.refusal() ?? 'too many password guesses at this listener: try again later'}\r\n`);
      return;
    }
    if (!samePassword(answer, this.options.password)) {
      const holdMs = gate.failed();
      setTimeout(() => secure.end('wrong password\r\n'), holdMs).unref();
      return;
    }
    gate.succeeded();
    slot.leave();
    secure.write('\r\n');
    this.inner.dial(context).then(
      (upstream) => {
        if (rest.length > 0) upstream.write(rest);
        secure.pipe(upstream).pipe(secure);
        const close = () => {
          secure.destroy();
          upstream.destroy();
        };
        secure.on('close', close);
        upstream.on('close', close);
        upstream.on('error', close);
        secure.resume();
      },
      (err: unknown) => {
        secure.end(`the console could not be opened: ${describeError(err)}\r\n`);
      },
    );
  }

  async check(signal: AbortSignal, admit?: () => void): Promise<void> {
    await this.inner.check?.(signal, admit);
  }

  /** The session is closing: each client's TLS ends with its close_notify, which its relay passes on. */
  endClients(): void {
    for (const secure of this.clients) secure.end();
  }

  async release(): Promise<void> {
    await this.inner.release?.();
  }
}

/** Compares in constant time for equal lengths: the answer's bytes leak nothing by timing. */
function samePassword(answer: Buffer, password: string): boolean {
  const expected = Buffer.from(password, 'utf8');
  return answer.length === expected.length && timingSafeEqual(answer, expected);
}
