import { consoleKind } from '../../console-kinds/index.js';
import { THUMBNAIL_MIN_INTERVAL_MS } from '../../limits.js';
import type { ConsoleSession, SessionSnapshot } from '../../proxy/index.js';
import { SharedSerialSource } from '../../serial/index.js';
import type { RfbHub } from '../../rfb/hub/hub.js';
import type { Thumbnail, ThumbnailView } from '../../tui/thumbnails/thumbnail.js';
import { scaleBgrxToRgb } from '../../tui/thumbnails/scale.js';
import { lastLines } from '../../tui/thumbnails/text.js';

/**
 * The grid's pictures, for `open`: each VNC console's screen read from its RFB hub's
 * framebuffer (never a connection of its own: KubeVirt has one VNC session per VM, and the
 * hub holds it), each serial console's last lines from its shared line's output. Only the
 * tiles the TUI says are on screen are sampled, each at most once per
 * THUMBNAIL_MIN_INTERVAL_MS and only after its screen changed (framebuffer damage, new
 * output); a picture equal to the last one is not sent again. What comes out is plain data
 * for the TUI's thumbnail events.
 */

/** What is kept of a serial console's output for its tile. */
const SERIAL_TAIL_BYTES = 16 * 1024;

/** Why an unshared VNC console has no picture, with what would share it (`drop --no-share`). */
function notSharedReason(hint = 'drop --no-share'): string {
  return `no picture: this VNC console is not shared (${hint})`;
}
/** Why a console of a kind vconsole cannot read (SPICE) has no thumbnail. */
function noPictureReason(label: string): string {
  return `${label}: no picture here (only VNC screens are shared); Enter opens a viewer`;
}

interface Tracked {
  session: ConsoleSession;
  hub?: RfbHub;
  serial?: SharedSerialSource;
  /** The serial output's last bytes, oldest first. */
  tail: Buffer[];
  tailBytes: number;
  /** Changed since the last sample. */
  dirty: boolean;
  lastAt: number;
  timer?: ReturnType<typeof setTimeout>;
  /** What was sent last, to send nothing when a sample is the same. */
  last?: Thumbnail;
  stop: () => void;
}

interface ThumbnailSamplerOptions {
  /** What would share an unshared VNC console, for its tile's reason. */
  shareHint?: string;
  /** false: serial consoles' text only, no screen is read (--thumbnails none, NO_COLOR). Default true. */
  pictures?: boolean;
  intervalMs?: number;
  now?: () => number;
}

export class ThumbnailSampler {
  private readonly tracked = new Map<number, Tracked>();
  private view?: ThumbnailView;
  private readonly intervalMs: number;
  private readonly now: () => number;
  private readonly notShared: string;
  private readonly pictures: boolean;

  constructor(
    private readonly show: (sessionId: number, thumbnail: Thumbnail | undefined) => void,
    options: ThumbnailSamplerOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? THUMBNAIL_MIN_INTERVAL_MS;
    this.now = options.now ?? Date.now;
    this.notShared = notSharedReason(options.shareHint);
    this.pictures = options.pictures ?? true;
  }

  /** Follows `session`'s screen (through `hub`, when it is shared) or its serial output. */
  track(session: ConsoleSession, hub: RfbHub | undefined): void {
    this.untrack(session.id);
    const serial = session.source instanceof SharedSerialSource ? session.source : undefined;
    const entry: Tracked = { session, hub, serial, tail: [], tailBytes: 0, dirty: true, lastAt: -Infinity, stop: () => undefined };
    const changed = () => this.changed(entry);
    const onOutput = (chunk: Buffer) => {
      entry.tail.push(chunk);
      entry.tailBytes += chunk.length;
      while (entry.tail.length > 1 && entry.tailBytes - entry.tail[0].length >= SERIAL_TAIL_BYTES)
        entry.tailBytes -= entry.tail.shift()?.length ?? 0;
      changed();
    };
    // State and type changes decide what a tile shows (waiting, a reason, a picture).
    const onChange = (snapshot: SessionSnapshot) => {
      if (snapshot.state === 'listening' || snapshot.consoleType !== undefined) changed();
    };
    hub?.framebuffer.on('damage', changed);
    hub?.framebuffer.on('resize', changed);
    serial?.on('output', onOutput);
    session.on('change', onChange);
    entry.stop = () => {
      hub?.framebuffer.off('damage', changed);
      hub?.framebuffer.off('resize', changed);
      serial?.off('output', onOutput);
      session.off('change', onChange);
      clearTimeout(entry.timer);
    };
    this.tracked.set(session.id, entry);
    this.changed(entry);
  }

  untrack(sessionId: number): void {
    this.tracked.get(sessionId)?.stop();
    this.tracked.delete(sessionId);
  }

  /** The tiles on screen now (undefined: none); new and resized tiles are sampled at once. */
  setView(view: ThumbnailView | undefined): void {
    const before = this.view;
    this.view = view;
    const resized =
      !before ||
      !view ||
      before.columns !== view.columns ||
      before.rows !== view.rows ||
      before.pixelWidth !== view.pixelWidth ||
      before.pixelHeight !== view.pixelHeight;
    for (const entry of this.tracked.values()) {
      if (!this.visible(entry)) {
        clearTimeout(entry.timer);
        entry.timer = undefined;
        continue;
      }
      if (resized) entry.dirty = true;
      this.schedule(entry);
    }
  }

  close(): void {
    for (const entry of this.tracked.values()) entry.stop();
    this.tracked.clear();
  }

  private visible(entry: Tracked): boolean {
    return this.view?.sessionIds.includes(entry.session.id) ?? false;
  }

  private changed(entry: Tracked): void {
    entry.dirty = true;
    if (this.visible(entry)) this.schedule(entry);
  }

  private schedule(entry: Tracked): void {
    if (entry.timer || !entry.dirty) return;
    const delay = Math.max(0, entry.lastAt + this.intervalMs - this.now());
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      if (!this.tracked.has(entry.session.id) || !this.visible(entry)) return;
      // A timer may fire early by the time a busy event-loop turn took (Node measures from the
      // turn's start): the interval is kept by the clock, not by the timer.
      if (this.now() - entry.lastAt < this.intervalMs) return this.schedule(entry);
      this.sample(entry);
    }, delay);
    entry.timer.unref?.();
  }

  private sample(entry: Tracked): void {
    const view = this.view;
    if (!view) return;
    entry.dirty = false;
    const thumbnail = this.thumbnailOf(entry, view);
    // The interval runs from the end of this sample: a slow one (a busy machine) is not followed
    // at once by the next.
    const changed = !sameThumbnail(entry.last, thumbnail);
    if (changed) {
      entry.last = thumbnail;
      this.show(entry.session.id, thumbnail);
    }
    entry.lastAt = this.now();
  }

  private thumbnailOf(entry: Tracked, view: ThumbnailView): Thumbnail | undefined {
    const snapshot = entry.session.snapshot();
    if (snapshot.state !== 'listening') return undefined;
    const kind = consoleKind(snapshot.consoleType);
    if (!kind || (kind.reads !== 'terminal' && !this.pictures)) return undefined;
    switch (kind.reads) {
      case 'terminal': {
        const text = Buffer.concat(entry.tail).toString('utf8');
        return { type: 'lines', lines: lastLines(text, view.rows, view.columns) };
      }
      case undefined:
        return { type: 'none', reason: noPictureReason(kind.label) };
      case 'rfb': {
        if (!entry.hub) return { type: 'none', reason: this.notShared };
        const { framebuffer } = entry.hub;
        if (framebuffer.width === 0 || framebuffer.height === 0) return undefined;
        const { pixelWidth: width, pixelHeight: height } = view;
        return {
          type: 'pixels',
          width,
          height,
          rgb: scaleBgrxToRgb(framebuffer.pixels, framebuffer.width, framebuffer.height, width, height),
        };
      }
      default:
        return undefined;
    }
  }
}

function sameThumbnail(a: Thumbnail | undefined, b: Thumbnail | undefined): boolean {
  if (!a || !b) return a === b;
  if (a.type === 'pixels' && b.type === 'pixels')
    return a.width === b.width && a.height === b.height && Buffer.from(a.rgb).equals(Buffer.from(b.rgb));
  if (a.type === 'lines' && b.type === 'lines') return a.lines.length === b.lines.length && a.lines.every((line, i) => line === b.lines[i]);
  if (a.type === 'none' && b.type === 'none') return a.reason === b.reason;
  return false;
}
