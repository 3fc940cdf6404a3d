/**
 * The timeouts and size limits of vconsole, in one place so they can be read side by side and
 * agree with each other (an HTTP call must fit inside the dial that makes it). A number only the
 * providers read lives with them: src/targets/limits.ts, src/targets/dial/limits.ts (the websocket
 * dial) and the limits.ts of a provider's folder (src/targets/openstack, src/targets/kubevirt).
 */

/** One HTTP request to the Kubernetes API, Keystone or Nova, from sending to the last byte. */
export const HTTP_REQUEST_TIMEOUT_MS = 20_000;
/** The largest JSON body vconsole reads from an API (a VMI list of a big cluster fits). */
export const HTTP_BODY_LIMIT_BYTES = 8 * 1024 * 1024;

/** One dial of an upstream console, every API call it needs included. */
export const DIAL_TIMEOUT_MS = 30_000;
/**
 * An upstream dialled ahead for a viewer that `open` launched is closed when the viewer has not
 * connected this long after (a viewer that failed to start must not hold the VM's console).
 */
export const DIAL_AHEAD_TTL_MS = 10_000;

/** A whole number of milliseconds from the environment variable `name`, else `fallback` (tests shorten waits with it). */
export function msFromEnv(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

/** Viewers get this long to exit on their own before they are killed: well inside the shutdown deadline. */
export const VIEWER_SHUTDOWN_GRACE_MS = 700;
/** Shutdown waits at most this long for sessions to close, so a hung upstream never keeps vconsole alive. */
export const SHUTDOWN_DEADLINE_MS = 1500;
/**
 * What a viewer's socket buffers before the relay holds its console back: room for the frames
 * that follow the first of an event-loop turn (they go out in one writev, see relay.ts). At
 * 128 KiB the batches paused the upstream often enough to cost more than they saved
 * (docs/BENCHMARKS.md); 200 slow viewers add at most 50 MiB.
 */
export const VIEWER_WRITE_BUFFER_BYTES = 256 * 1024;
/**
 * A closing session's clients whose console ended them cleanly (the hub's TLS viewers get their
 * close_notify) get this long for their relays to pass the end on and close, before the rest is
 * cut: well inside SHUTDOWN_DEADLINE_MS.
 */
export const CLIENT_FAREWELL_GRACE_MS = 500;
/** After one side of a relay ends, the other gets this long to flush its last bytes before it is destroyed. */
export const RELAY_END_GRACE_MS = 1000;
/** One viewer probe (`--version` and the like) during detection: a viewer that hangs on it must not stall `open`. */
export const VIEWER_PROBE_TIMEOUT_MS = 2_000;

/** A recording is written out at least this often: a crash loses at most this much of it. */
export const RECORDING_FLUSH_MS = 500;
/** What all recordings of one command may take on disk unless --record-max-size says otherwise. */
export const RECORDING_DEFAULT_MAX_BYTES = 1024 * 1024 * 1024;
/** `open --follow` asks again which VMs match its selectors this often (VCONSOLE_FOLLOW_INTERVAL_MS overrides it). */
export const SELECTOR_FOLLOW_INTERVAL_MS = 5_000;
/**
 * `open` opens at most this many consoles at once without asking (a selector, -A or the picker
 * can match hundreds, each a viewer window): more asks y/N on a terminal, needs --max N or --yes without one.
 */
export const OPEN_WITHOUT_ASKING_MAX = 12;
/** Other vconsoles of the user one held console serves at once (src/holding); more are turned away. */
export const JOINERS_MAX = 32;
/** How often, at most, a session reports traffic while bytes flow (the TUI's rates are computed per report). No bytes, no timer. */
export const TRAFFIC_REPORT_MS = 250;
/** A grid tile's picture is taken again at most this often (and only when its screen changed). */
export const THUMBNAIL_MIN_INTERVAL_MS = 333;
/**
 * `open` loads the TUI (Ink, React, yoga: 100 ms and more that hold the one thread) once the
 * first viewers show their consoles: TUI_LOAD_SETTLE_MS after each one's first connection, or
 * after TUI_LOAD_DEFER_MAX_MS at the latest (a slow cluster, a viewer that never connects), so
 * loading it never sits between the command and the VM's screen.
 */
export const TUI_LOAD_DEFER_MAX_MS = 1000;
export const TUI_LOAD_SETTLE_MS = 200;
/**
 * After a wrong VNC password the answer waits AUTH_BACKOFF_FIRST_MS, doubling with each further
 * failure from the same address up to AUTH_BACKOFF_MAX_MS; meanwhile that address is refused
 * at once, without its answers being checked (docs: README, Security).
 * VCONSOLE_AUTH_BACKOFF_FIRST_MS overrides the first hold (tests lengthen it, so that what must
 * happen within one hold does on a busy machine); the later ones still double from it.
 */
export const AUTH_BACKOFF_FIRST_MS = msFromEnv('VCONSOLE_AUTH_BACKOFF_FIRST_MS', 1_000);
export const AUTH_BACKOFF_MAX_MS = 30_000;
/** An address's failures are forgotten this long after its last one (a new burst starts at 1 s). */
export const AUTH_BACKOFF_FORGET_MS = 10 * 60_000;
/** Addresses whose failures are remembered at once; past it the oldest is forgotten. */
export const AUTH_BACKOFF_MAX_ADDRESSES = 4096;
/**
 * Guesses checked across a command's listeners, whatever address they come from (the per-address
 * back-off above does nothing against a guesser that rotates its source address): a bucket of
 * GUESS_BURST, refilled one guess each GUESS_REFILL_MS (2 a second). An answer that finds it
 * empty is refused unchecked ("try again in 1 s"); an address that gave the right password in
 * this run takes nothing from it. At 2 a second (63 million a year) the 8 random characters of a
 * made password (94^8, 6e15) hold for 48 million years on average; a password a person chose
 * holds only as long as it is not among the first guesses (docs: COMMANDS.md, Security).
 * VCONSOLE_GUESS_REFILL_MS overrides the refill (tests stop it to count what a burst gets checked).
 */
export const GUESS_BURST = 10;
export const GUESS_REFILL_MS = msFromEnv('VCONSOLE_GUESS_REFILL_MS', 500);
/** Addresses remembered as having given the right password (they spend no guesses); past it the oldest goes. */
export const KNOWN_ADDRESSES_MAX = 256;
/**
 * Connections that have not logged in yet (a password is asked of them), per source address and
 * across a command's listeners. A connection beyond either is let in and an older one is closed
 * instead: of its own address's, or, over the total, of the address holding the most; the one
 * that got least far (said nothing, then spoke, then was asked the password) and the oldest of
 * those goes first. So one address keeps at most 8 and cannot hold the rest, and a viewer that
 * answers at once outlives the silent connections of its own address. 8: a person opening a few
 * viewers at once, or a few people behind one NAT address; 64: many such, few descriptors.
 */
export const PRE_LOGIN_PER_ADDRESS = 8;
export const PRE_LOGIN_MAX = 64;
/**
 * A connection that is asked a password and sends nothing at all this long after the server's
 * first bytes is closed: a viewer answers RFB's version (a TLS client its ClientHello) at once,
 * so only a socket held open for its own sake waits. VCONSOLE_PRE_LOGIN_SILENT_MS overrides it.
 */
export const PRE_LOGIN_SILENT_MS = msFromEnv('VCONSOLE_PRE_LOGIN_SILENT_MS', 3_000);
/** The largest config file vconsole reads: far above any real one, small enough that /dev/zero cannot eat memory. */
export const CONFIG_FILE_MAX_BYTES = 1024 * 1024;
/**
 * The browser viewer's one-time address (the only secret on the browser's command line, which
 * other local users can read from /proc) works once, and only this soon after it was made.
 */
export const BROWSER_ONE_TIME_CODE_TTL_MS = 10_000;
/** The address shown to the user to open by hand (when no browser could be started) lives this long. */
export const BROWSER_MANUAL_CODE_TTL_MS = 10 * 60_000;

/**
 * A connection to a listener that has not finished the VNC handshake (authentication included)
 * this long after it arrived is closed, so silent sockets cannot pile up until the process runs
 * out of descriptors. VCONSOLE_PREAUTH_TIMEOUT_MS overrides it.
 */
export const PREAUTH_TIMEOUT_MS = msFromEnv('VCONSOLE_PREAUTH_TIMEOUT_MS', 10_000);
/**
 * `--via`: ssh has this long, from its start to its first byte on stdout, to connect and log in
 * to the bastion (answering its prompts included); a stalled connection or login fails with a
 * line that says so instead of waiting for ever. VCONSOLE_VIA_LOGIN_TIMEOUT_MS overrides it.
 */
export const VIA_LOGIN_TIMEOUT_MS = msFromEnv('VCONSOLE_VIA_LOGIN_TIMEOUT_MS', 30_000);
/** The same wait where stdin is a terminal: ssh may be asking there for a password and a second factor. */
export const VIA_LOGIN_AT_TERMINAL_TIMEOUT_MS = msFromEnv('VCONSOLE_VIA_LOGIN_TIMEOUT_MS', 120_000);
/**
 * `--via`: from the bastion's first byte on, the far vconsole has this long to start its agent
 * and say hello (what the login prints before it included). VCONSOLE_VIA_HELLO_TIMEOUT_MS
 * overrides it.
 */
export const VIA_HELLO_TIMEOUT_MS = msFromEnv('VCONSOLE_VIA_HELLO_TIMEOUT_MS', 20_000);
/**
 * `--via`: the far vconsole has this long to answer what a whole command asks of it (its
 * consoles, a listing), longer than its own bounds there (LIST_TIMEOUT_MS), so an agent that
 * hangs ends the command with a line. VCONSOLE_VIA_REQUEST_TIMEOUT_MS overrides it.
 */
export const VIA_REQUEST_TIMEOUT_MS = msFromEnv('VCONSOLE_VIA_REQUEST_TIMEOUT_MS', 90_000);
/**
 * Once the challenge is sent, the viewer has this long to answer it: a person types the VNC
 * password into the viewer's prompt now, which 10 s would cut off. Still bounded, so a silent
 * socket is closed all the same. VCONSOLE_PASSWORD_ANSWER_TIMEOUT_MS overrides it.
 */
export const PASSWORD_ANSWER_TIMEOUT_MS = msFromEnv('VCONSOLE_PASSWORD_ANSWER_TIMEOUT_MS', 60_000);
/**
 * Connections turned away unserved while their address is held back (AUTH_BACKOFF_*) are not
 * logged one by one: each session says how many, from where, once per this window.
 * VCONSOLE_TURNED_AWAY_SUMMARY_MS overrides it.
 */
export const TURNED_AWAY_SUMMARY_MS = msFromEnv('VCONSOLE_TURNED_AWAY_SUMMARY_MS', 10_000);
/**
 * A shared console (the RFB hub) must finish its handshake within this long, and have sent a
 * whole picture this long after its turn to draw one came (FIRST_PICTURES_AT_ONCE), at start and
 * at each redial; one that never does fails its start instead of holding it forever.
 * VCONSOLE_FIRST_PICTURE_TIMEOUT_MS overrides it.
 */
export const FIRST_PICTURE_TIMEOUT_MS = msFromEnv('VCONSOLE_FIRST_PICTURE_TIMEOUT_MS', 20_000);
/**
 * Shared consoles of one process asked for their first whole picture at the same time (at start,
 * and at redials): the others wait their turn, their timeout not counting meanwhile. Each costs
 * a burst of a few copies of its screen while it arrives (a 1080p one ~40 MB), so this bounds the
 * peak; 4 keep both cores of a small machine busy (docs/BENCHMARKS.md, shared consoles).
 */
export const FIRST_PICTURES_AT_ONCE = 4;
/**
 * A console that has its turn for a first picture (FIRST_PICTURES_AT_ONCE) and sends no byte
 * for this long gives the turn back to the next in line, so a console that never draws holds
 * no other back for its whole FIRST_PICTURE_TIMEOUT_MS; its own timeout still runs, and it may
 * finish its picture without a turn. VCONSOLE_FIRST_PICTURE_TURN_IDLE_MS overrides it.
 */
export const FIRST_PICTURE_TURN_IDLE_MS = msFromEnv('VCONSOLE_FIRST_PICTURE_TURN_IDLE_MS', 2_000);
/**
 * A viewer of a shared console whose connection took nothing for this long while output waited
 * is disconnected: it holds one coalesced update, never a backlog, but must not hold it forever.
 * VCONSOLE_VIEWER_STALL_MS overrides it.
 */
export const VIEWER_STALL_TIMEOUT_MS = msFromEnv('VCONSOLE_VIEWER_STALL_MS', 60_000);
/**
 * Bells and clipboard text for a viewer whose connection already holds this much unsent are
 * dropped (a bell or clipboard that cannot be delivered now is worth nothing later).
 */
export const VIEWER_MESSAGE_BACKLOG_BYTES = 64 * 1024;
/**
 * A client of a shared serial console that leaves this much output unread is dropped with a
 * line whatever else happens (the line is held back before, see SERIAL_CLIENT_BEHIND_BYTES);
 * the others and the scrollback carry on.
 */
export const SERIAL_CLIENT_BACKLOG_BYTES = 4 * 1024 * 1024;
/** A shared serial client with this much unread output holds the line back while it catches up ... */
export const SERIAL_CLIENT_BEHIND_BYTES = 1024 * 1024;
/** ... and is dropped with a line when it has read nothing for this long (VCONSOLE_SERIAL_CLIENT_STALL_MS overrides it). */
export const SERIAL_CLIENT_STALL_MS = msFromEnv('VCONSOLE_SERIAL_CLIENT_STALL_MS', 10_000);

/**
 * The work the RFB client does for one console in one turn of the event loop, in pixels
 * written (a rectangle counts its rows whole, at the screen's width: the hub keeps and compares
 * a written row's old pixels whole; a rectangle or message counts DECODE_COST_PER_MESSAGE
 * besides): past it the rest waits for the next turn, so a console's flood never holds up
 * signals, keys or other consoles. A million pixels is a few milliseconds of fills or row
 * copies on a slow core; counted by their pixels alone, a turn of 1x1 updates took 50-100 ms.
 */
export const DECODE_PIXELS_PER_TURN = 1024 * 1024;
/** What one rectangle or server message counts against the budgets, pixels aside. */
export const DECODE_COST_PER_MESSAGE = 64;
/**
 * What one Hextile tile counts at least: a tile's own work (a byte on the wire can be a tile)
 * costs as much as drawing a few hundred pixels. Measured on a busy 2-core machine: a turn of
 * one-byte tiles took 48 ms counting 256 a tile, 28 ms at 512 (which still decodes a 1080p
 * screen of tiles ~24 times a second).
 */
export const DECODE_COST_PER_TILE = 512;
/**
 * Pixels one console may have decoded per second (a 4K screen redrawn 30 times a second, a
 * 1080p one ~120 times): past it that console is read no further until the second is over;
 * others go on (the per-turn budget already keeps it from holding them up). At 100 million it
 * capped a busy 1080p console below what the hub delivered before (docs/BENCHMARKS.md).
 */
export const DECODE_PIXELS_PER_SECOND = 250_000_000;
/** Bytes a console's parser keeps queued while it waits for its budget; past it the console is not read. */
export const DECODE_QUEUE_HIGH_BYTES = 4 * 1024 * 1024;

/**
 * The encoding the hub's viewer servers do together in one turn of the event loop, in pixels
 * (a Hextile pixel counts ENCODE_HEXTILE_PIXEL_COST): past it an update's next band of rows
 * waits for the next turn, viewers served in the order they asked. Measured on this 2-core
 * machine per million pixels of noise: ZRLE ~14 ms, Hextile ~75 ms, Raw ~4 ms; so a turn
 * spends at most ~30-40 ms encoding. A 1080p update still fits in one turn: at 512 Ki pixels
 * the console's decoding ran between its bands and the hub bench's 1080p ZRLE viewer got 27
 * Mpx/s instead of 45 (at 2 Mi: 48).
 */
export const ENCODE_PIXELS_PER_TURN = 2 * 1024 * 1024;
/** What a Hextile pixel counts against ENCODE_PIXELS_PER_TURN (its tiles cost ~5 times a ZRLE pixel's). */
export const ENCODE_HEXTILE_PIXEL_COST = 4;
/**
 * The pixels one FramebufferUpdate to a client carries at most: a 4K screen in one update, an
 * 8192x8192 one in eight (the rest goes out as the client asks again; its damage is kept).
 * Bounds what an update being encoded holds per client (32 MiB of Raw at 32 bpp).
 */
export const CLIENT_UPDATE_MAX_PIXELS = 3840 * 2160;

/** Pixels of a screenshot's rows a PNG encoder filters in one turn of the event loop (~5 ms). */
export const PNG_ROWS_PIXELS_PER_TURN = 256 * 1024;

/** `replay` reads at most this many connections of one recording (a real one has a few per drop)... */
export const REPLAY_MAX_CONNECTIONS = 10_000;
/** ... and this many records (each costs ~100 bytes held; a real 1 GiB recording has far fewer). */
export const REPLAY_MAX_RECORDS = 2_000_000;
/** `replay --png-every` writes at most this many frames: past it the interval must be longer. */
export const REPLAY_MAX_FRAMES = 10_000;
/**
 * The screen pixels all viewers of one `replay` may hold together (each viewer plays its own
 * copy): one 8192x8192 screen (256 MiB), or many ordinary ones; a viewer past it is refused.
 */
export const REPLAY_SCREEN_PIXELS = 8192 * 8192;
/**
 * A grid thumbnail reads at most this many screen pixels: a larger screen (a hostile console
 * can declare 8192x8192) is sampled on evenly spaced rows and columns instead of read whole.
 */
export const THUMBNAIL_MAX_SOURCE_PIXELS = 4 * 1024 * 1024;
