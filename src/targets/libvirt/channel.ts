// Opening a domain's console where it is: here, straight to its socket or pty; on another host,
// through an ssh stdio channel as virt-viewer does (ssh -W for a TCP port, socat or nc on the host
// for a unix socket or a pty), so no port is ever opened on the host for it.
import fs from 'node:fs';
import { Duplex } from 'node:stream';
import tty from 'node:tty';
import { VconsoleError, describeError } from '../../errors.js';
import { DIAL_TIMEOUT_MS } from '../../limits.js';
import { dialSocket } from '../dial/socket.js';
import type { ConsoleAddress } from './domain-xml.js';
import type { LibvirtConnection } from './connection.js';
import { shellQuote, spawnInvocation, sshInvocation, virshComplaint, type Invocation } from './host-command.js';

/** What is kept of ssh's complaints, to say why a channel failed. */
const CHANNEL_STDERR_LIMIT_BYTES = 8 * 1024;

/**
 * The ssh command that carries `address` on the host: `-W` for TCP (ssh's own forwarding, no
 * program needed there), socat else nc for a unix socket (virt-viewer's command), socat for a pty.
 * The path is the domain XML's: one quoted word for the host's shell, and for socat an address
 * whose path has every character of its syntax escaped.
 */
export function channelInvocation(connection: Extract<LibvirtConnection, { kind: 'ssh' }>, address: ConsoleAddress): Invocation {
  if (address.kind === 'tcp') {
    const host = address.host.includes(':') ? `[${address.host}]` : address.host;
    return sshInvocation(connection.ssh, ['-W', `${host}:${address.port}`], undefined);
  }
  const script =
    address.kind === 'unix'
      ? `if command -v socat >/dev/null 2>&1; then exec socat - ${socatAddress('UNIX-CONNECT', address.path)}; else exec nc -U ${shellQuote(address.path)}; fi`
      : `if command -v socat >/dev/null 2>&1; then exec socat - ${socatAddress('OPEN', address.path)}; else echo 'vconsole: socat is needed on this host to read a pty console' >&2; exit 127; fi`;
  return sshInvocation(connection.ssh, ['-T', '-e', 'none'], `sh -c ${shellQuote(script)}`);
}

/**
 * `TYPE:PATH` as one word for the shell, with PATH literal to socat: its address syntax reads
 * `:` `,` and `!!` as separators (`/tmp/f,trunc` would truncate a file), and brackets and quotes as
 * groups; a backslash before each of these, and before a backslash, makes it a plain character
 * (socat(1), "lexical analysis", since socat 1.5.0).
 */
function socatAddress(type: 'UNIX-CONNECT' | 'OPEN', path: string): string {
  return shellQuote(`${type}:${path.replace(/[\\:,!"'(){}[\]]/g, '\\$&')}`);
}

/** Opens the console at `address` for one client. */
export async function openConsoleChannel(
  connection: LibvirtConnection,
  address: ConsoleAddress,
  signal: AbortSignal,
  { waitForFirstByte }: { waitForFirstByte: boolean },
): Promise<Duplex> {
  if (connection.kind === 'ssh') return openSshChannel(channelInvocation(connection, address), signal, waitForFirstByte);
  if (address.kind === 'tcp') return dialSocket({ host: address.host, port: address.port }, signal);
  if (address.kind === 'unix') return dialSocket({ path: address.path }, signal);
  return openPty(address.path);
}

/** A pty QEMU holds the other end of, opened read-write without becoming our controlling terminal. */
function openPty(path: string): Duplex {
  let fd: number;
  try {
    fd = fs.openSync(path, fs.constants.O_RDWR | fs.constants.O_NOCTTY);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new VconsoleError(`cannot open its serial pty ${path}: ${describeError(err)}`, {
      hint: code === 'EACCES' ? 'QEMU owns the pty: run vconsole as root, or give the domain a unix-socket serial console' : undefined,
      cause: err,
    });
  }
  if (!tty.isatty(fd)) {
    fs.closeSync(fd);
    throw new VconsoleError(`its serial console ${path} is not a terminal`);
  }
  const input = new tty.ReadStream(fd);
  input.setRawMode(true);
  const output = new tty.WriteStream(fd);
  const stream = Duplex.from({ readable: input, writable: output });
  stream.once('close', () => {
    input.destroy();
    output.destroy();
  });
  return stream;
}

/**
 * ssh's stdin and stdout as one byte stream. It settles once the channel is known to be up:
 * at once, or (for a console that speaks first) with its first byte; a channel ssh cannot open
 * rejects with ssh's own words. Destroying the stream ends the ssh process.
 */
function openSshChannel(invocation: Invocation, signal: AbortSignal, waitForFirstByte: boolean): Promise<Duplex> {
  const child = spawnInvocation(invocation);
  const stdout = child.stdout;
  const stdin = child.stdin;
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    if (stderr.length < CHANNEL_STDERR_LIMIT_BYTES) stderr += chunk.toString('utf8');
  });
  const ended = () => virshComplaint(stderr) ?? 'the ssh channel closed';
  const stream = new Duplex({
    read() {
      stdout?.resume();
    },
    write(chunk: Buffer, _encoding, callback) {
      if (!stdin || stdin.destroyed) return callback(new VconsoleError(ended()));
      stdin.write(chunk, callback);
    },
    final(callback) {
      stdin?.end();
      callback();
    },
    destroy(err, callback) {
      child.kill('SIGTERM');
      callback(err);
    },
  });
  stdout?.on('data', (chunk: Buffer) => {
    if (!stream.push(chunk)) stdout.pause();
  });
  stdin?.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (err) {
        stream.destroy();
        reject(err);
      } else resolve(stream);
    };
    const onAbort = () => settle(new VconsoleError('cancelled'));
    signal.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(
      () => settle(new VconsoleError(`no answer through ssh within ${DIAL_TIMEOUT_MS / 1000} s: ${ended()}`)),
      DIAL_TIMEOUT_MS,
    );
    if (signal.aborted) onAbort();
    child.once('error', (err) => {
      settle(new VconsoleError(`cannot run ${invocation.command}: ${describeError(err)}`, { cause: err }));
      stream.destroy();
    });
    child.once('close', (code) => {
      if (!settled) return settle(new VconsoleError(`cannot reach the console through ssh: ${ended()}`));
      if (code === 0) stream.push(null);
      else stream.destroy(new VconsoleError(`the console's ssh channel ended: ${ended()}`));
    });
    if (waitForFirstByte) {
      stdout?.once('data', () => settle());
    } else child.once('spawn', () => settle());
  });
}
