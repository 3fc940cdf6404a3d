import { certificateNotice, exposedIdentity, passwordFileFlag } from './sharing.js';
import { INSECURE_VNC_AUTH_FLAG } from './share-flags.js';
import type { ReplayFlags } from './replay-flags.js';
import fs from 'node:fs';
import path from 'node:path';
import { UsageError, VconsoleError, describeError } from '../errors.js';
import { REPLAY_MAX_FRAMES } from '../limits.js';
import { ConsoleSession, handleShutdownSignals } from '../proxy/index.js';
import { capIdleTime, idleTimeLimitOf, isAsciicast, parseAsciicast, isRfbRecording, parseRfbRecording } from '../recording/index.js';
import { echoInput } from '../text/terminal-text.js';
import { parseDuration } from './duration.js';
import { exposureWarning, isLoopback } from './flags.js';
import { sessionLogPrinter } from './log-lines.js';
import { generateVncPassword } from './password-file.js';
import { portLine, type CommandIo } from './command-io.js';
import { encodePng } from './screenshot-file.js';
import { writePrivateFileSync } from '../files/safe-file.js';

/**
 * `vconsole replay FILE`: a VNC recording is served on a local port as a console any viewer can
 * watch from the start (or written as PNG frames with --png-every); a serial recording (asciicast)
 * is played to stdout.
 */
export async function runReplayCommand(file: string, flags: ReplayFlags, io: CommandIo & { stdoutIsTerminal?: boolean }): Promise<void> {
  const data = readRecording(file);
  const speed = flags.speed ?? 1;
  if (isRfbRecording(data)) {
    const recording = parseOrExplain(file, () => parseRfbRecording(data));
    if (recording.truncated)
      io.stderr.write(`vconsole: ${echoInput(file)} ends inside a record (vconsole stopped while recording): replaying what is whole\n`);
    if (flags.pngEvery !== undefined) {
      await writeFrames(recording, file, flags, io);
      return;
    }
    await serveRecording(recording, speed, flags, io);
    return;
  }
  if (isAsciicast(data)) {
    if (flags.pngEvery !== undefined)
      throw new UsageError('--png-every is for VNC recordings', `${echoInput(file)} is a serial (asciicast) recording`);
    const cast = parseOrExplain(file, () => parseAsciicast(data.toString('utf8')));
    await playToStream(capIdleTime(cast.events, idleTimeLimitOf(cast.header, flags.idleTimeLimit)), speed, io.stdout);
    return;
  }
  throw new UsageError(`${echoInput(file)} is not a vconsole recording`, 'replay reads the .vncrec and .cast files that --record writes');
}

function readRecording(file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    throw new VconsoleError(`cannot read ${echoInput(file)}: ${describeError(err)}`);
  }
}

function parseOrExplain<T>(file: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    // The format readers throw plain errors that say what is wrong with the file.
    throw new VconsoleError(`${echoInput(file)}: ${describeError(err)}`);
  }
}

async function writeFrames(
  recording: ReturnType<typeof parseRfbRecording>,
  file: string,
  flags: ReplayFlags,
  io: CommandIo,
): Promise<void> {
  const everyMs = parseDuration(flags.pngEvery ?? '');
  if (everyMs <= 0) throw new UsageError('--png-every must be above 0', 'e.g. --png-every 10s');
  const output = flags.output;
  if (!output) throw new UsageError('--png-every needs -o DIR', 'name the directory the frames go to');
  // The frames are as many as the recording's span holds: a stamp far ahead must not ask for millions.
  const frames = Math.floor(recording.durationMs / everyMs) + 1;
  if (frames > REPLAY_MAX_FRAMES) {
    throw new UsageError(
      `--png-every ${flags.pngEvery ?? ''} would write ${frames} frames over the ${formatSpan(recording.durationMs)} the recording spans, more than ${REPLAY_MAX_FRAMES}`,
      `choose a longer interval, e.g. --png-every ${Math.ceil(recording.durationMs / (REPLAY_MAX_FRAMES - 1) / 1000)}s`,
    );
  }
  fs.mkdirSync(output, { recursive: true });
  const stem = path.basename(file).replace(/\.vncrec$/, '');
  const { recordedFrames } = await import('../recording/replay-frames.js');
  const count = await recordedFrames(recording, everyMs, (frame) => {
    const name = path.join(output, `${stem}-${frameTime(frame.ms)}.png`);
    writePrivateFileSync(name, encodePng(frame.framebuffer));
    io.stdout.write(`${name}\n`);
  });
  if (count === 0) throw new VconsoleError(`${echoInput(file)} holds no screen to write`);
}

/** A span as hours, minutes and seconds: `49h 42m 57s`. */
function formatSpan(ms: number): string {
  const seconds = Math.round(ms / 1000);
  const parts = [
    [Math.floor(seconds / 3600), 'h'],
    [Math.floor(seconds / 60) % 60, 'm'],
    [seconds % 60, 's'],
  ] as const;
  return parts
    .filter(([value], i) => value > 0 || i === 2)
    .map(([value, unit]) => `${value}${unit}`)
    .join(' ');
}

/** `000010.000s`: frame names sort by time. */
function frameTime(ms: number): string {
  return `${String(Math.floor(ms / 1000)).padStart(6, '0')}.${String(Math.round(ms % 1000)).padStart(3, '0')}s`;
}

/**
 * A replay beyond loopback follows proxy's rules: a recorded screen can show what was typed
 * and read on the console, so its viewers give a password (--password-file, else a generated
 * one shown once), with the same back-off, and the exposure is said on stderr.
 */
async function serveRecording(
  recording: ReturnType<typeof parseRfbRecording>,
  speed: number,
  flags: ReplayFlags,
  io: CommandIo,
): Promise<void> {
  const listen = flags.listen ?? '127.0.0.1';
  const filed = passwordFileFlag(flags.passwordFile);
  const generated = filed === undefined && !isLoopback(listen) ? generateVncPassword() : undefined;
  const password = filed ?? generated;
  const [{ ReplaySource }, { AuthBackoff }] = await Promise.all([
    import('../recording/replay-source.js'),
    import('../rfb/server/auth-backoff.js'),
  ]);
  const identity = isLoopback(listen) ? undefined : await exposedIdentity(flags, listen);
  const tls = identity && { context: identity.context, alsoPlainVncAuth: Boolean(flags.insecureVncAuth) };
  const session = new ConsoleSession(new ReplaySource(recording, speed, { password, tls, authBackoff: new AuthBackoff() }));
  session.on('log', sessionLogPrinter(io.stderr, Boolean(flags.verbose)));
  handleShutdownSignals({ close: () => session.close(), exit: io.exit });
  const bound = await session.start({ host: listen, port: flags.port ?? 0 });
  if (!isLoopback(listen)) {
    io.stderr.write(
      `${password ? `warning: listening on ${listen}: the replay is reachable from the network; viewers must speak TLS (VeNCrypt X509Vnc) with the certificate below and give the VNC password${tls?.alsoPlainVncAuth ? `; ${INSECURE_VNC_AUTH_FLAG}: viewers may also give it without TLS, in clear` : ''}` : exposureWarning(listen)}\n`,
    );
    const certificate = certificateNotice({ tls: identity });
    if (certificate) io.stderr.write(`${certificate}\n`);
  }
  if (generated)
    io.stderr.write(`VNC password for viewers of this listener: ${generated} (shown once; give your own with --password-file)\n`);
  io.stdout.write(`${portLine(`replay:${session.name}`, bound.address, bound.port, 'vnc')}\n`);
}

/** Writes the output events at their times (divided by `speed`). */
async function playToStream(
  events: { seconds: number; kind: string; text: string }[],
  speed: number,
  out: NodeJS.WritableStream,
): Promise<void> {
  const started = Date.now();
  for (const event of events) {
    if (event.kind !== 'o') continue;
    const wait = started + (event.seconds * 1000) / speed - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (!out.write(event.text)) await new Promise((resolve) => out.once('drain', resolve));
  }
}
