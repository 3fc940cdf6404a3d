/**
 * The hub's one connection to its console, opened: the dial (within DIAL_TIMEOUT_MS), the RFB
 * handshake, a turn among the process's first pictures, and the first whole picture drawn into
 * the hub's framebuffer, so that no client starts from a blank screen. A console that answers
 * the handshake and never draws fails here rather than hold its start forever.
 */
import type { Duplex } from 'node:stream';
import { VconsoleError } from '../../errors.js';
import { DIAL_TIMEOUT_MS, FIRST_PICTURE_TIMEOUT_MS } from '../../limits.js';
import { SilentConsoleError } from '../../proxy/shared-source.js';
import type { LogLevel, UpstreamSource } from '../../proxy/types.js';
import { consolePasswordOf } from '../../streams/console-password.js';
import { RfbConsoleClient } from '../client/rfb-client.js';
import { wholePicture } from '../client/whole-picture.js';
import { durationText } from '../server/output.js';
import type { Framebuffer } from '../wire/framebuffer.js';
import { Countdown } from './countdown.js';
import type { FirstPictureTurns } from './first-pictures.js';
import { untilAborted } from '../../abort-race.js';

export interface ConsoleConnection {
  readonly client: RfbConsoleClient;
  /** The connection's own stream: its write buffer says whether the console takes input. */
  readonly stream: Duplex;
}

interface ConsoleConnectionOptions {
  framebuffer: Framebuffer;
  /** VNC authentication when the dialled stream brings no password of its own. */
  password?: string;
  turns: FirstPictureTurns;
  /**
   * A redial, which never takes the console from another client (`preserveSession`): on KubeVirt
   * the drop may have been someone else taking the VM's one VNC session, and kicking them back
   * would start a tug of war.
   */
  redial: boolean;
  log: (level: LogLevel, message: string) => void;
  /** The caller's cancel. */
  signal: AbortSignal;
  /** The hub was released: what opens meanwhile is closed again. */
  closing: AbortSignal;
}

/** Opens the connection; rejects with why not (a SilentConsoleError for a timeout). */
export async function openConsoleConnection(inner: UpstreamSource, options: ConsoleConnectionOptions): Promise<ConsoleConnection> {
  const { framebuffer, closing } = options;
  const both = AbortSignal.any([options.signal, closing]);
  const dialTimeout = AbortSignal.timeout(DIAL_TIMEOUT_MS);
  let stream: Duplex;
  try {
    stream = await inner.dial({
      signal: AbortSignal.any([both, dialTimeout]),
      log: options.log,
      preserveSession: options.redial || undefined,
    });
  } catch (err) {
    if (dialTimeout.aborted && !both.aborted)
      throw new SilentConsoleError(`timed out opening the console (${durationText(DIAL_TIMEOUT_MS)})`);
    throw err;
  }
  // FIRST_PICTURE_TIMEOUT_MS for the handshake, and again once its turn came to draw.
  const pictureTimeout = new Countdown(FIRST_PICTURE_TIMEOUT_MS);
  let giveTurnBack: (() => void) | undefined;
  let client: RfbConsoleClient;
  /** A close that came with the first picture (bytes after it broke the protocol). */
  let dropped: { error?: Error } | undefined;
  try {
    client = await untilAborted(
      RfbConsoleClient.connect(stream, framebuffer, {
        password: consolePasswordOf(stream) ?? options.password,
        shared: true,
        relayExtensions: true,
        beforeFirstUpdate: async () => {
          pictureTimeout.stop();
          giveTurnBack = await options.turns.take(both, stream);
          pictureTimeout.start();
        },
      }).then(async (connected) => {
        // Heard from the start: the hub's close listener comes a few turns later, too late
        // for one in the same read as the picture, which would leave a dead console shared.
        connected.once('close', (error) => (dropped ??= { error }));
        await wholePicture(connected, framebuffer);
        return connected;
      }),
      AbortSignal.any([both, pictureTimeout.signal]),
      () => new VconsoleError('cancelled'),
      () => stream.destroy(),
    );
  } catch (err) {
    stream.destroy();
    if (pictureTimeout.signal.aborted && !both.aborted) {
      throw new SilentConsoleError(
        `timed out: the console sent no whole picture within ${durationText(FIRST_PICTURE_TIMEOUT_MS)}`,
        'check that the VM shows a screen; unshared (open --no-share, proxy without --share) each viewer waits for the console itself',
      );
    }
    throw err;
  } finally {
    pictureTimeout.stop();
    giveTurnBack?.();
  }
  if (closing.aborted) {
    client.close();
    throw new VconsoleError('the shared console was closed');
  }
  if (dropped) throw dropped.error ?? new VconsoleError('the console closed the connection');
  return { client, stream };
}
