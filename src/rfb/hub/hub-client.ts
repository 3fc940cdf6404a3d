/**
 * One client of the hub: its own RFB server over the shared picture, in memory (the relay
 * carries the other end), asking the password and TLS an exposed listener wants of it, and its
 * keys, pointer, clipboard and resize requests sent to the console while the hub holds a
 * connection to it (dropped meanwhile).
 */
import type { Duplex } from 'node:stream';
import type { DialContext } from '../../proxy/types.js';
import { duplexPair } from '../../streams/duplex-pair.js';
import type { AuthBackoff } from '../server/auth-backoff.js';
import { serveClient, type RfbServerOptions, type ServedClient } from '../server/rfb-server.js';
import { tlsForPeer } from '../server/vencrypt.js';
import type { Framebuffer } from '../wire/framebuffer.js';
import { RESIZE_STATUS } from '../wire/extensions.js';
import type { ConsoleConnection } from './console-connection.js';
import { PointerRelay } from './pointer-relay.js';

/** What the hub asks of its clients. */
export interface HubClientOptions {
  /** Local clients must answer VNC authentication with this password (exposed listeners). */
  clientPassword?: string;
  /** Clients speak VeNCrypt X509Vnc: TLS with this certificate, then the password inside it. */
  clientTls?: RfbServerOptions['tls'];
  /** Clients on this machine give the password without TLS (open's browser viewer, noVNC; tlsForPeer). */
  plainVncAuthFromThisMachine?: boolean;
  /** Clients only watch: their keys, pointer and clipboard are dropped. */
  viewOnly?: boolean;
}

/** How a client is named in the log: by its address when it has one. */
export function viewerName(peer: string | undefined): string {
  return `viewer${peer ? ` from ${peer}` : ''}`;
}

/**
 * Serves one client over `framebuffer`; `connection` is the hub's connection to the console now
 * (undefined while it redials). Returns the client and the stream its dial hands the relay.
 */
export function serveHubClient(
  framebuffer: Framebuffer,
  connection: () => ConsoleConnection | undefined,
  options: HubClientOptions,
  authBackoff: AuthBackoff,
  context: DialContext,
): { client: ServedClient; stream: Duplex } {
  const [clientEnd, relayEnd] = duplexPair();
  const pointer = new PointerRelay();
  const upstream = () => connection()?.client;
  const client = serveClient(clientEnd, {
    framebuffer,
    // Another vconsole of this user, through the user-only socket: its own password is not asked, nor TLS.
    password: context.joined ? undefined : options.clientPassword,
    tls: context.joined ? undefined : tlsForPeer(options.clientTls, context.peer, Boolean(options.plainVncAuthFromThisMachine)),
    viewOnly: options.viewOnly,
    input: {
      key: (down, keysym) => upstream()?.key(down, keysym),
      // A plain key event to a console that announced no QEMU key events (RfbConsoleClient.qemuKey).
      qemuKey: (down, keysym, keycode) => upstream()?.qemuKey(down, keysym, keycode),
      pointer: (buttons, x, y, deltas) => {
        const to = upstream();
        if (to) pointer.send(to, buttons, x, y, deltas ?? false);
      },
      clipboard: (text) => upstream()?.clipboard(text),
      // Forwarded to the console, whose answer (QEMU: 4, passed to the guest) the client gets.
      setDesktopSize: (request) => upstream()?.setDesktopSize(request) ?? Promise.resolve(RESIZE_STATUS.prohibited),
      roomForInput: () => roomForInput(connection()?.stream),
    },
    indicators: () => upstream()?.indicators ?? {},
    // The first wrong password of a burst is logged, not every guess.
    authGate: authBackoff.gate(context.peer, (message) => context.log('warn', message)),
    onEncodings: (choice) => context.log('debug', `${viewerName(context.peer)} is sent ${choice}`),
  });
  return { client, stream: relayEnd };
}

/** Undefined while the console's connection takes input; else once it drained or closed. */
function roomForInput(stream: Duplex | undefined): Promise<void> | undefined {
  if (!stream || !stream.writableNeedDrain || stream.destroyed) return undefined;
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}
