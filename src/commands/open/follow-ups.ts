/**
 * What `open` follows besides each session's port: a shared console's drops, a recording's
 * size, a serial line's news and log file, the grid's pictures, the VM's state, and with
 * --follow the selection. One OpenRun owns one of these: it starts each follow-up as its
 * session gets there, and stops them all through stop() and closeSerialLogs() when it shuts down.
 */
import { describeError } from '../../errors.js';
import type { ConsoleSession, SessionRegistry } from '../../proxy/index.js';
import type { ViewerRouter } from '../../viewers/viewer-router.js';
import type { ThumbnailView } from '../../tui/thumbnails/thumbnail.js';
import type { Recording } from '../record-flags.js';
import type { Sharing } from '../sharing.js';
import { followSelection, type FollowContext } from '../follow-selection.js';
import { followSerial, reportSerialLine } from './serial.js';
import { ThumbnailSampler } from './thumbnails.js';
import { VmStateFollowers, type VmStateHooks } from './vm-state.js';
import type { OpenView } from './views.js';

/** What the follow-ups need of the run that owns them. */
interface FollowUpsHost {
  /** The view news go to; undefined until it is mounted. */
  view(): OpenView | undefined;
  sharing: Sharing;
  /** What would share VNC consoles when they are not (`drop --no-share`). */
  shareHint?: string;
  recording: Recording;
  /** --log-dir: a log file per serial console there. */
  logDir: string | undefined;
  /**
   * What the grid's tiles show: pictures and serial text (the TUI), serial text only
   * (--thumbnails none or NO_COLOR: text needs no colour), or nothing (no TUI).
   */
  tiles: 'pictures' | 'text' | 'none';
  /** The VM runs again: start the session (it had failed) or launch its viewer again. */
  runsAgain: VmStateHooks['runsAgain'];
}

export class SessionFollowUps {
  /** Per serial session: stops following its line; resolves once its log file is written. */
  private readonly serialLines = new Map<number, () => Promise<void>>();
  /** The grid's pictures: sampled only while the grid shows them. */
  private readonly thumbnails: ThumbnailSampler | undefined;
  /** Each session follows its VM's state; a VM back from a stop gets its session and viewer back. */
  private readonly vmStates: VmStateFollowers;
  /** Stops asking the selectors again (--follow). */
  private stopSelection: (() => void) | undefined;

  constructor(
    private readonly host: FollowUpsHost,
    registry: SessionRegistry,
    viewers: ViewerRouter,
  ) {
    this.thumbnails =
      host.tiles !== 'none'
        ? new ThumbnailSampler((id, thumbnail) => host.view()?.show({ type: 'thumbnail', sessionId: id, thumbnail }), {
            shareHint: host.shareHint,
            pictures: host.tiles === 'pictures',
          })
        : undefined;
    this.vmStates = new VmStateFollowers(
      { show: (id, state) => host.view()?.show({ type: 'vm-state', sessionId: id, phase: state.phase }), runsAgain: host.runsAgain },
      registry,
      viewers,
    );
  }

  /** From the session's creation on: a shared console's drop shows on its row, the hub's log lines in the event log. */
  track(session: ConsoleSession): void {
    const { sharing, recording } = this.host;
    sharing.follow(session);
    reportSerialLine(session, () => this.host.view());
    const hub = sharing.hubOf(session);
    hub?.on('state', (state) => {
      if (state !== 'ended')
        this.host.view()?.show({ type: 'upstream', sessionId: session.id, status: { reconnecting: state === 'reconnecting' } });
    });
    hub?.on('ended', (err) =>
      this.host.view()?.show({ type: 'upstream', sessionId: session.id, status: { reconnecting: false, ended: describeError(err) } }),
    );
    recording.recorderOf(session)?.on('bytes', (bytes) => this.host.view()?.show({ type: 'recording', sessionId: session.id, bytes }));
    this.thumbnails?.track(session, sharing.hubOf(session));
  }

  /** Once the session listens: its serial line's output to the view and the log file, once per session. */
  listening(session: ConsoleSession): void {
    const view = this.host.view();
    if (view && !this.serialLines.has(session.id)) this.serialLines.set(session.id, followSerial(session, view, this.host.logDir));
  }

  /** Starts following the session's VM state (once its provider can tell, once per session). */
  followVm(session: ConsoleSession): void {
    this.vmStates.follow(session);
  }

  /** --follow: asks the selectors again every interval until stop(). */
  followSelection(context: FollowContext): void {
    this.stopSelection = followSelection(context);
  }

  /** The grid's tiles on screen changed: only those are sampled. */
  showPictures(tiles: ThumbnailView | undefined): void {
    this.thumbnails?.setView(tiles);
  }

  /** The session was closed from the TUI: its serial log is written out, its picture no longer sampled. */
  untrack(sessionId: number): void {
    void this.serialLines.get(sessionId)?.();
    this.serialLines.delete(sessionId);
    this.thumbnails?.untrack(sessionId);
  }

  /** Ends the VM state follows (their sockets and timers); also on a second Ctrl+C. */
  stopVmStates(): void {
    this.vmStates.stopAll();
  }

  /** Ends every follow-up but the serial logs: the selection, the VM states, the pictures. */
  stop(): void {
    this.stopSelection?.();
    this.stopVmStates();
    this.thumbnails?.close();
  }

  /** Stops following every serial line; resolves once each log file has what its VM printed. */
  closeSerialLogs(): Promise<void[]> {
    return Promise.all([...this.serialLines.values()].map((stop) => stop()));
  }
}
