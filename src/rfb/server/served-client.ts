/** What the hub's RFB server is given for each client, and what it hands back: the contract of serveClient. */
import type { EventEmitter } from 'node:events';
import type tls from 'node:tls';
import type { Framebuffer } from '../wire/framebuffer.js';
import type { DesktopSizeRequest } from '../wire/extensions.js';
import type { AuthGate } from './auth-backoff.js';
import type { ConsoleIndicators } from './extensions.js';

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
  /** How long a client asked for a password may send nothing at all (default PRE_LOGIN_SILENT_MS). */
  silentTimeoutMs?: number;
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
  /** One of many alike (a flood's connections not logged in): worth a debug line, not a warning each. */
  readonly routine: boolean;

  constructor(message: string, options: { routine?: boolean } = {}) {
    super(message);
    this.name = 'ClientDroppedError';
    this.routine = options.routine ?? false;
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
