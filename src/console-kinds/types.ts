// What vconsole knows about one kind of console (a VNC screen, a serial line, SPICE, ...), as
// data. Everything that used to ask "is it vnc?" asks the kind instead: the data path whether
// the server speaks first, the viewers which kinds they show, sharing and recording how. A leaf
// module: it imports nothing of vconsole, so every layer may read it.

/** How one console session may be shared among several clients (`--share`). */
type KindSharing = 'rfb-hub' | 'serial-line' | 'none';

/** How a recording of this kind is written (`--record`). */
export type KindRecording = 'rfb' | 'asciicast' | 'none';

/**
 * How a console of this kind reaches the user: `port` through a local port vconsole serves
 * (any viewer that shows the kind), `browser` only as a page the cloud itself serves (Nova's
 * rdp-html5 and webmks), which no local port can carry.
 */
type KindCarriage = 'port' | 'browser';

/**
 * How vconsole's own code reads a console of this kind: `rfb` its RFB client decodes the
 * screen (screenshot, thumbnails, the grid); `terminal` it is a text line the terminal attaches
 * (`vconsole console`, the TUI's Enter, text thumbnails).
 */
type KindReading = 'rfb' | 'terminal';

export interface ConsoleKind {
  /** What `--type` and `#TYPE` say: `vnc`, `serial`, `spice`, ... */
  readonly id: string;
  /** What prose calls it: `VNC`, `serial`, `SPICE`. */
  readonly label: string;
  /** Whether it is a picture (a screenshot, a thumbnail and the grid can show it). */
  readonly screen: boolean;
  /** Whether the console's server speaks first (RFB's version banner): the data path waits for it. */
  readonly serverSpeaksFirst: boolean;
  /**
   * Whether a websocket console of this kind is given a moment after the upgrade before it
   * counts as connected (nova-serialproxy accepts the upgrade, then closes on a bad token).
   */
  readonly settlesBeforeConnected: boolean;
  /** Whether one viewer opens several connections to the port (SPICE's channels). */
  readonly manyConnections: boolean;
  /** The URL scheme a viewer is handed for the port, when viewers take one (`vnc://`, `spice://`). */
  readonly urlScheme?: string;
  readonly sharing: KindSharing;
  readonly recording: KindRecording;
  readonly carriage: KindCarriage;
  /** How vconsole itself reads it; absent when only a viewer shows it (SPICE, browser-only consoles). */
  readonly reads?: KindReading;
  /**
   * Its place when `--type auto` picks among what a VM offers: lower first. A kind `auto`
   * must never pick (a browser-only console) has none.
   */
  readonly autoRank?: number;
}
