// `vconsole screenshot`: one PNG per VNC console, into a file, a directory or stdout.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { VconsoleConfig } from '../config/index.js';
import { consoleKind, consoleLabel, consoleTypesWhere } from '../console-kinds/index.js';
import { UsageError, VconsoleError, errorLine } from '../errors.js';
import { loadRfbClient, type RfbConsoleClient } from '../rfb/index.js';
import { type ConsoleTarget, oneOf } from '../targets/index.js';
import { echoInput, terminalSafe } from '../text/terminal-text.js';
import { readSecretLine } from '../files/secret-line.js';
import { encodePngInTurns } from './png-in-turns.js';
import { consolePasswordOf } from '../streams/console-password.js';
import { screenshotFileName } from './screenshot-file.js';
import { FileWriteError, directoryWarning, ensureDirectory, fileErrorCause, writePrivateFile } from '../files/safe-file.js';
import { namingTarget, type CommandIo } from './command-io.js';
import { resolveTargets, targetOptionsFrom } from './target-options.js';
import { refuseBrowserOnly } from './browser-only.js';
import { joiningFrom } from './joining.js';
import type { UpstreamSource } from '../proxy/index.js';
import { resolveViaTargets, viaLinkFrom } from './via.js';

import type { ScreenshotFlags } from './screenshot-flags.js';

/** The kinds screenshot reads: screens vconsole's RFB client decodes (VNC); the first is what it asks for. */
const PICTURE_TYPES = consoleTypesWhere((kind) => kind.reads === 'rfb');
const PICTURE_HINT = `screenshot takes ${oneOf(PICTURE_TYPES.map(consoleLabel))} consoles`;

/** How long one console may take from pre-flight to a whole picture. */
export const SCREENSHOT_TIMEOUT_MS = 30_000;

/**
 * `vconsole screenshot`: a PNG of each console's screen. Every target is tried; each failure
 * is one line on stderr, the written paths are said on stderr too (stdout carries the PNG
 * with `-o -`). Resolves with the exit code: 0 all written, 1 any failed; usage errors throw.
 */
export async function runScreenshotCommand(
  inputs: string[],
  flags: ScreenshotFlags,
  config: VconsoleConfig,
  io: CommandIo,
): Promise<number> {
  const password =
    flags.vncPasswordFile === undefined ? undefined : readSecretLine(flags.vncPasswordFile, '--vnc-password-file', { what: 'password' });
  // A picture is not worth kicking someone off KubeVirt's one VNC session: refuse unless asked.
  const options = { ...targetOptionsFrom(flags, config), consoleType: PICTURE_TYPES[0], preserveSession: !flags.takeOver };
  const via = viaLinkFrom(flags, config, (line) => io.stderr.write(`${line}\n`));
  try {
    const targets = via
      ? await resolveViaTargets(via, inputs, { ...flags, type: PICTURE_TYPES[0] }, { preserveSession: !flags.takeOver })
      : resolveTargets(inputs, options, config);
    return await picture(targets, flags, password, io);
  } finally {
    via?.close();
  }
}

/** Each target's picture saved where -o says; the exit code. */
async function picture(targets: ConsoleTarget[], flags: ScreenshotFlags, password: string | undefined, io: CommandIo): Promise<number> {
  refuseBrowserOnly(targets, 'screenshot');
  const other = targets.find((target) => !readsPicture(target));
  if (other) throw new UsageError(`${other.name}: ${notAScreen(other).message}`, `${PICTURE_HINT} (drop #${other.facts.consoleType})`);
  const destination = destinationFor(flags.output, targets.length, io);
  // A screen another vconsole of this user holds is pictured through it: nobody's session is taken.
  const joining = joiningFrom(flags, 'screenshot', (text) => io.stderr.write(`${terminalSafe(text)}\n`));
  const results = await Promise.allSettled(
    targets.map(async (target) => {
      const source = joining.wrap(target);
      try {
        const png = await capture(target, source, password);
        return await save(png, target, destination, io);
      } finally {
        await source.release?.().catch(() => undefined);
      }
    }),
  );
  let failed = 0;
  results.forEach((result, i) => {
    if (result.status === 'fulfilled') {
      if (result.value) io.stderr.write(`${terminalSafe(`${targets[i].name}: wrote ${result.value}`)}\n`);
    } else {
      failed++;
      io.stderr.write(`${errorLine(namingTarget(targets[i].name, result.reason))}\n`);
    }
  });
  return failed > 0 ? 1 : 0;
}

type Destination = { kind: 'stdout' } | { kind: 'file'; file: string } | { kind: 'dir'; dir: string };

/**
 * Where the pictures go, settled before any console is dialled so a typo costs nothing. `-o`
 * names a directory when it is one, ends in a slash, or several targets share it; one that is
 * not there yet is created (0700, parents too), as recordings and console logs are.
 */
function destinationFor(output: string | undefined, count: number, io: CommandIo): Destination {
  if (output === undefined) return { kind: 'dir', dir: '.' };
  if (output === '') throw new UsageError('-o is empty', 'give a file, a directory, or - for stdout');
  if (output === '-') {
    if (count > 1) throw new UsageError('-o - takes one target: several PNGs cannot share stdout', 'give a directory with -o DIR');
    return { kind: 'stdout' };
  }
  if (isDirectory(output)) return withWarning(output, io);
  const namesDirectory = output.endsWith('/') || output.endsWith(path.sep);
  if (!namesDirectory && count === 1) return { kind: 'file', file: output };
  // Something else is there already (a file, with or without the slash).
  if (existsSync(output.replace(/[\\/]+$/, '') || output))
    throw new UsageError(
      `-o ${echoInput(output)} is not a directory`,
      namesDirectory
        ? 'give a directory, or the file without the trailing /'
        : 'with several targets give a directory (it is created when absent)',
    );
  try {
    ensureDirectory(output);
  } catch (err) {
    throw new VconsoleError(
      `cannot create directory ${echoInput(output)}: ${fileErrorCause(err instanceof FileWriteError ? err.cause : err)}`,
      {
        hint: 'give a writable directory with -o',
      },
    );
  }
  return { kind: 'dir', dir: output };
}

/** A directory others could swap files in is said, once (the pictures still go there). */
function withWarning(dir: string, io: CommandIo): Destination {
  const warning = directoryWarning(dir);
  if (warning) io.stderr.write(`${terminalSafe(`warning: ${warning}`)}\n`);
  return { kind: 'dir', dir };
}

function isDirectory(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}

/** One whole picture of the console (dialled through `source`, which wraps `target`), as PNG bytes; `stop` aborting gives up. */
export async function capture(
  target: ConsoleTarget,
  source: UpstreamSource,
  password: string | undefined,
  stop?: AbortSignal,
): Promise<Buffer> {
  const timeout = AbortSignal.timeout(SCREENSHOT_TIMEOUT_MS);
  const signal = stop ? AbortSignal.any([timeout, stop]) : timeout;
  if (!readsPicture(target)) throw notAScreen(target);
  await source.check?.(signal);
  if (!readsPicture(target)) throw notAScreen(target);
  const { Framebuffer, RfbConsoleClient: Client, wholePicture } = await loadRfbClient();
  const stream = await source.dial({ signal, log: () => undefined });
  const framebuffer = new Framebuffer(0, 0);
  let upstream: RfbConsoleClient | undefined;
  const onAbort = () => stream.destroy();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    upstream = await Client.connect(stream, framebuffer, { password: consolePasswordOf(stream) ?? password, shared: true });
    await wholePicture(upstream, framebuffer);
  } catch (err) {
    stop?.throwIfAborted();
    if (signal.aborted) throw new VconsoleError(`no picture within ${SCREENSHOT_TIMEOUT_MS / 1000} s`, { cause: err });
    throw err;
  } finally {
    signal.removeEventListener('abort', onAbort);
    upstream?.close();
    stream.destroy();
  }
  return encodePngInTurns(framebuffer);
}

/** Whether vconsole's RFB client can read the target's screen (its type may settle in the pre-flight). */
function readsPicture(target: ConsoleTarget): boolean {
  return PICTURE_TYPES.includes(target.facts.consoleType);
}

function notAScreen(target: ConsoleTarget): VconsoleError {
  // vconsole reads screens over RFB only; a SPICE screen is left to remote-viewer.
  const kind = consoleKind(target.facts.consoleType);
  const what = kind?.screen
    ? `it is a ${kind.label} console, which screenshot cannot read`
    : `it is a ${target.facts.consoleType} console, not a screen`;
  return new VconsoleError(what, { hint: PICTURE_HINT });
}

/** Writes the picture; returns the path written, or undefined for stdout. */
async function save(png: Buffer, target: ConsoleTarget, destination: Destination, io: CommandIo): Promise<string | undefined> {
  if (destination.kind === 'stdout') {
    await new Promise<void>((resolve, reject) => io.stdout.write(png, (err) => (err ? reject(err) : resolve())));
    return undefined;
  }
  const file = destination.kind === 'file' ? destination.file : path.join(destination.dir, screenshotFileName(target.name));
  try {
    await writePrivateFile(file, png);
  } catch (err) {
    throw new VconsoleError(`cannot write ${echoInput(file)}: ${fileErrorCause(err instanceof FileWriteError ? err.cause : err)}`, {
      hint: 'give a writable file or directory with -o',
    });
  }
  return file;
}
