import net from 'node:net';
import path from 'node:path';
import { localAddressOf } from '../../net/host-port.js';
import { VconsoleError, describeError } from '../../errors.js';
import { Framebuffer } from '../../rfb/wire/framebuffer.js';
import { RfbConsoleClient } from '../../rfb/client/rfb-client.js';
import { wholePicture } from '../../rfb/client/whole-picture.js';
import { echoInput } from '../../text/terminal-text.js';
import { fileErrorCause, writePrivateNewFile } from '../../files/safe-file.js';
import { SCREENSHOT_TIMEOUT_MS } from '../screenshot.js';
import { encodePngInTurns } from '../png-in-turns.js';
import { timestampedScreenshotName } from '../screenshot-file.js';

/** Where a session listens, as its snapshot says. */
interface ListeningSession {
  name: string;
  address?: string;
  port?: number;
  /** Viewers connected now. */
  clients?: number;
}

interface SessionScreenshotOptions {
  /** Where the PNG goes; default the current directory. */
  dir?: string;
  /** The time in the file name; default now. */
  at?: Date;
  /** The password the session's viewers must give, if any. */
  password?: string;
  /**
   * The console keeps one session (KubeVirt) and nothing shares it here: through the port a
   * picture is one more client and would take the screen from a viewer showing it.
   */
  exclusive?: boolean;
  /** What would share the console (`drop --no-share`), said when `exclusive` refuses. */
  shareHint?: string;
  /**
   * The shared console's picture (its hub's), pictured instead of connecting to the port: a
   * port beyond loopback speaks VeNCrypt, which vconsole's own RFB client does not.
   */
  shared?: Framebuffer;
  timeoutMs?: number;
}

/**
 * `s` in `vconsole open`: a PNG of a VNC session's screen, taken through the session's own
 * local port like any viewer (a shared console thus kicks nobody), written as
 * `DIR/NAME-YYYYMMDD-HHMMSS.png` (never over an existing file). Resolves with the path.
 */
export async function saveSessionScreenshot(session: ListeningSession, options: SessionScreenshotOptions = {}): Promise<string> {
  if (session.port === undefined) throw new VconsoleError(`${session.name} is not listening`);
  if (options.exclusive && (session.clients ?? 0) > 0) {
    throw new VconsoleError(`a screenshot would take ${session.name}'s only VNC session from its viewer`, {
      hint: `s needs a shared console to picture one being watched: ${options.shareHint ?? 'drop --no-share'}`,
    });
  }
  if (options.shared)
    return writeNew(options.dir ?? '.', timestampedScreenshotName(session.name, options.at ?? new Date()), await pngOf(options.shared));
  const host = localAddressOf(session.address);
  const timeoutMs = options.timeoutMs ?? SCREENSHOT_TIMEOUT_MS;
  const framebuffer = new Framebuffer(0, 0);
  const socket = net.connect({ host, port: session.port });
  const timer = setTimeout(
    () => socket.destroy(new VconsoleError(`no picture of ${session.name} within ${timeoutMs / 1000} s`)),
    timeoutMs,
  );
  let upstream: RfbConsoleClient | undefined;
  try {
    upstream = await RfbConsoleClient.connect(socket, framebuffer, { password: options.password, shared: true });
    await wholePicture(upstream, framebuffer);
  } catch (err) {
    throw new VconsoleError(`no screenshot of ${session.name}: ${describeError(err)}`, { cause: err });
  } finally {
    clearTimeout(timer);
    upstream?.close();
    socket.destroy();
  }
  return writeNew(
    options.dir ?? '.',
    timestampedScreenshotName(session.name, options.at ?? new Date()),
    await encodePngInTurns(framebuffer),
  );
}

/** A PNG of a copy of `shared` as it is now: the hub keeps drawing on its own while the bands are encoded. */
function pngOf(shared: Framebuffer): Promise<Buffer> {
  const { width, height } = shared;
  const copy = new Framebuffer(width, height);
  copy.putPixels({ x: 0, y: 0, w: width, h: height }, shared.read({ x: 0, y: 0, w: width, h: height }));
  return encodePngInTurns(copy);
}

/** Writes `png` as `name` in `dir` (0600, never through a link), or `name` with -2, -3... when a picture of that second exists. */
async function writeNew(dir: string, name: string, png: Buffer): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const file = path.join(dir, attempt === 1 ? name : name.replace(/\.png$/, `-${attempt}.png`));
    try {
      await writePrivateNewFile(file, png);
      return file;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST' && attempt < 100) continue;
      throw new VconsoleError(`cannot write ${echoInput(file)}: ${fileErrorCause(err)}`, { cause: err });
    }
  }
}
