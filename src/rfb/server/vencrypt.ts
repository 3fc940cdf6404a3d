import os from 'node:os';
import tls from 'node:tls';
import type { Duplex } from 'node:stream';

/*
 * VeNCrypt (RFB security type 19), the server's side, as QEMU (ui/vnc-auth-vencrypt.c) and
 * TigerVNC (common/rfb/SSecurityVeNCrypt.cxx, SSecurityTLS.cxx) speak it: the server sends its
 * version (u8 0, u8 2), the client answers the version it speaks, the server acks it (u8 0: fine,
 * anything else and the connection ends), sends its sub-types (u8 count, u32 each), the client
 * picks one (u32), the server says u8 1 (accepted; 0 refuses) and the TLS handshake starts on the
 * same connection. Over TLS the sub-type's own authentication follows: for X509Vnc (261) the VNC
 * authentication of RFC 6143, challenge, answer and SecurityResult.
 *
 * Only X509Vnc is offered. X509Plain (262) carries a user name and a password; vconsole has one
 * password per listener and no user names, so the user name would be asked for and ignored, and
 * the anonymous sub-types (TLSNone, TLSVnc, X509None) leave out the certificate or the password.
 */

export const SECURITY_VENCRYPT = 19;
const VENCRYPT_X509_VNC = 261;

/** What the server writes once type 19 is chosen: the VeNCrypt version it speaks, 0.2. */
export const VENCRYPT_SERVER_VERSION = Buffer.from([0, 2]);

/** The server's reply to the client's 2-byte version: the ack and the sub-types, or a refusal. */
export function answerVencryptVersion(version: Buffer): { reply: Buffer; refusal?: string } {
  const [major, minor] = [version[0], version[1]];
  if (major !== 0 || minor !== 2) {
    return { reply: Buffer.from([0xff]), refusal: `VeNCrypt version ${major}.${minor} is not spoken here (only 0.2)` };
  }
  const reply = Buffer.alloc(6);
  reply.writeUInt8(0, 0); // version accepted
  reply.writeUInt8(1, 1); // one sub-type
  reply.writeUInt32BE(VENCRYPT_X509_VNC, 2);
  return { reply };
}

/** The server's reply to the client's u32 sub-type: u8 1 for X509Vnc, else u8 0 and why. */
export function answerVencryptSubtype(subtype: Buffer): { reply: Buffer; refusal?: string } {
  const chosen = subtype.readUInt32BE(0);
  if (chosen !== VENCRYPT_X509_VNC) {
    return { reply: Buffer.from([0]), refusal: `VeNCrypt sub-type ${chosen} is not offered (only X509Vnc, ${VENCRYPT_X509_VNC})` };
  }
  return { reply: Buffer.from([1]) };
}

/**
 * The server end of TLS over `raw`, after the VeNCrypt sub-type was accepted. `early` holds the
 * bytes that came in behind the sub-type (the start of the ClientHello): they are handed back to
 * `raw` first. The caller has stopped reading `raw` itself; only the TLS socket reads it now.
 */
export function startServerTls(raw: Duplex, early: Buffer, secureContext: tls.SecureContext): tls.TLSSocket {
  raw.pause();
  raw.removeAllListeners('data');
  if (early.length > 0) raw.unshift(early);
  return new tls.TLSSocket(raw, { isServer: true, secureContext, requestCert: false });
}

/**
 * True when `peer` (`host:port`, `[v6]:port`, as sessions name clients) is this machine: a
 * loopback address or one of its own interfaces' (a listener on a LAN address is reached from
 * here by that address). Such a connection never crosses the network.
 */
export function isThisMachinePeer(peer: string | undefined, ownAddresses: () => string[] = interfaceAddresses): boolean {
  if (!peer) return false;
  const bracketed = /^\[(.*)\]:\d+$/.exec(peer);
  const host = (bracketed ? bracketed[1] : peer.replace(/:\d+$/, '')).replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1').replace(/%.*$/, '');
  if (host === '::1' || /^127\./.test(host)) return true;
  return ownAddresses().includes(host);
}

function interfaceAddresses(): string[] {
  return Object.values(os.networkInterfaces()).flatMap((infos) => (infos ?? []).map((info) => info.address));
}

/** The TLS options a client is served with (the RFB server's `tls`). */
interface ClientTls {
  context: tls.SecureContext;
  alsoPlainVncAuth?: boolean;
}

/**
 * What a client from `peer` is offered. With `plainFromThisMachine` (open: its browser viewer's
 * page reaches the console over loopback through noVNC, which speaks no X509 VeNCrypt and picks
 * the first type it knows of those offered, VeNCrypt's 19 among them), a client on this machine
 * gets plain VNC authentication alone, the password still asked: the challenge never leaves the
 * machine, and `open`'s loopback ports have no password at all. Other peers keep TLS.
 */
export function tlsForPeer(
  tlsOptions: ClientTls | undefined,
  peer: string | undefined,
  plainFromThisMachine: boolean,
  ownAddresses?: () => string[],
): ClientTls | undefined {
  return tlsOptions && plainFromThisMachine && isThisMachinePeer(peer, ownAddresses) ? undefined : tlsOptions;
}
