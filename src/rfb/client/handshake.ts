import { VconsoleError } from '../../errors.js';
import { clip, terminalSafe } from '../../text/terminal-text.js';
import { vncAuthResponse } from '../wire/vnc-auth.js';

/** Reads exactly `size` bytes of the handshake; rejects when the connection ends first. */
type HandshakeRead = (size: number, what: string) => Promise<Buffer>;

interface ServerInit {
  version: '3.3' | '3.7' | '3.8';
  width: number;
  height: number;
  name: string;
}

const SECURITY_NONE = 1;
const SECURITY_VNC_AUTH = 2;
/** Longest failure reason or desktop name accepted; real ones are a line. */
const MAX_TEXT_BYTES = 64 * 1024;
/** Largest screen accepted, per side: a framebuffer of this size is 256 MiB. */
export const MAX_SCREEN_SIDE = 8192;

/** Text the server sent, safe for one line of output. */
function serverText(bytes: Buffer): string {
  return clip(terminalSafe(bytes.toString('latin1')), 200);
}

async function readText(read: HandshakeRead, what: string): Promise<string> {
  const length = (await read(4, what)).readUInt32BE(0);
  if (length > MAX_TEXT_BYTES) throw new VconsoleError(`RFB server sent a ${what} of ${length} bytes, which is not plausible`);
  return serverText(await read(length, what));
}

/** The version to speak to a server that announced `banner`; throws for anything but RFB 3.x. */
function chooseVersion(banner: Buffer): '3.3' | '3.7' | '3.8' {
  const match = /^RFB (\d{3})\.(\d{3})\n$/.exec(banner.toString('latin1'));
  if (!match)
    throw new VconsoleError(`the server does not speak RFB (it sent "${serverText(banner)}")`, {
      hint: 'check that the address is a VNC server',
    });
  const major = Number(match[1]);
  const minor = Number(match[2]);
  if (major !== 3) throw new VconsoleError(`RFB server speaks version ${major}.${minor}; vconsole speaks 3.3 to 3.8`);
  // 3.8 and later minors (Apple's 3.889) talk 3.8; 3.4..3.6 are spoken as 3.3, as RFC 6143 says.
  return minor >= 8 ? '3.8' : minor === 7 ? '3.7' : '3.3';
}

function unsupportedSecurity(types: number[]): VconsoleError {
  return new VconsoleError(
    `RFB server offers security type${types.length > 1 ? 's' : ''} ${types.join(', ')}; vconsole supports None (1) and VNC Authentication (2)`,
  );
}

function passwordMissing(): VconsoleError {
  return new VconsoleError('RFB server asks for a VNC password and none was given', {
    hint: 'pass one with --vnc-password-file (or, for open, --no-share: each viewer then asks for it)',
  });
}

/**
 * The client side of the RFB handshake up to ServerInit (RFC 6143 7.1-7.3): version, security
 * (None or VNC Authentication), ClientInit. The password is never part of any message.
 */
export async function clientHandshake(
  read: HandshakeRead,
  write: (data: Buffer) => void,
  options: { password?: string; shared: boolean },
): Promise<ServerInit> {
  const version = chooseVersion(await read(12, 'the ProtocolVersion'));
  write(Buffer.from(`RFB 003.00${version.slice(2)}\n`, 'latin1'));

  let security: number;
  if (version === '3.3') {
    security = (await read(4, 'the security type')).readUInt32BE(0);
    if (security === 0) throw new VconsoleError(`RFB server refused the connection: ${await readText(read, 'failure reason')}`);
    if (security !== SECURITY_NONE && security !== SECURITY_VNC_AUTH) throw unsupportedSecurity([security]);
    if (security === SECURITY_VNC_AUTH && options.password === undefined) throw passwordMissing();
  } else {
    const count = (await read(1, 'the security types'))[0];
    if (count === 0) throw new VconsoleError(`RFB server refused the connection: ${await readText(read, 'failure reason')}`);
    const types = [...(await read(count, 'the security types'))];
    if (types.includes(SECURITY_NONE)) security = SECURITY_NONE;
    else if (types.includes(SECURITY_VNC_AUTH)) security = SECURITY_VNC_AUTH;
    else throw unsupportedSecurity(types);
    if (security === SECURITY_VNC_AUTH && options.password === undefined) throw passwordMissing();
    write(Buffer.from([security]));
  }

  if (security === SECURITY_VNC_AUTH) write(vncAuthResponse(await read(16, 'the VNC authentication challenge'), options.password ?? ''));
  // 3.3 and 3.7 send no SecurityResult after None; every version sends one after VNC Authentication.
  if (security === SECURITY_VNC_AUTH || version === '3.8') {
    const result = (await read(4, 'the SecurityResult')).readUInt32BE(0);
    if (result !== 0) {
      // The peer's own words (printable, capped by readText): a proxy in between (nova-novncproxy
      // negotiating with the VM itself) says here why it could not go on.
      const reason = version === '3.8' ? await readText(read, 'failure reason').catch(() => undefined) : undefined;
      const said = reason ? `: the console's proxy or VNC server said: ${reason}` : '';
      if (security === SECURITY_VNC_AUTH) throw new VconsoleError('VNC authentication failed: wrong password');
      throw new VconsoleError(`RFB server refused the connection after the security handshake${said}`, {
        hint: reason
          ? "a console proxy that authenticates to the VM's VNC server itself (Nova's nova-novncproxy: nova.conf [vnc] auth_schemes, vencrypt_*) may be unable to"
          : undefined,
      });
    }
  }

  write(Buffer.from([options.shared ? 1 : 0]));
  const init = await read(24, 'the ServerInit');
  const width = init.readUInt16BE(0);
  const height = init.readUInt16BE(2);
  if (width > MAX_SCREEN_SIDE || height > MAX_SCREEN_SIDE)
    throw new VconsoleError(
      `RFB server's screen of ${width}x${height} is larger than vconsole supports (${MAX_SCREEN_SIDE} pixels a side)`,
    );
  const nameLength = init.readUInt32BE(20);
  if (nameLength > MAX_TEXT_BYTES) throw new VconsoleError(`RFB server sent a desktop name of ${nameLength} bytes, which is not plausible`);
  const name = (await read(nameLength, 'the desktop name')).toString('utf8');
  return { version, width, height, name };
}
